package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the lines where a vLLM server (re)starts, as {@code server_start} observations (value 1,
 * text = what marked it): logs appended across restarts are common, and one start's figures must
 * not be mixed with another's. Markers, each from the source that prints it first in a start:
 * <ul>
 *   <li>vllm/entrypoints/openai/api_server.py {@code run_server}: {@code logger.info("vLLM API
 *       server version %s", VLLM_VERSION)}, then {@code "args: %s"} (later builds
 *       {@code "non-default args: %s"} from {@code log_non_default_args});</li>
 *   <li>vllm/engine/llm_engine.py: {@code "Initializing an LLM engine (v%s) with config"} (V0,
 *       later {@code "Initializing a V0 LLM engine"}), vllm/v1/engine/core.py
 *       {@code "Initializing a V1 LLM engine (v%s) with config"}. Current builds print it only in
 *       the engine core of local DP rank 0 ({@code if not data_parallel_rank_local}); older ones
 *       in every engine core, so the line of a DP rank above 0 ({@code EngineCore_DP1},
 *       {@code EngineCore_1}) is part of the same start and no marker;</li>
 *   <li>a command line, with or without a shell prompt and environment assignments before it
 *       ({@code $ vllm serve ...}, {@code CUDA_VISIBLE_DEVICES=4,5 vllm serve ...},
 *       {@code python -m vllm.entrypoints.openai.api_server ...}), as pasted logs and issues hold;</li>
 *   <li>a numbered worker label ({@code EngineCore_DP0}, {@code Worker_TP1}) with a new pid, but
 *       only once an earlier process of that label has finished its start-up figures (printed its
 *       KV cache budget, KV blocks or tokens, graph pool, or died of an out-of-memory error).</li>
 * </ul>
 * The last marker needs its condition because one start can hold several processes of one label.
 * With data parallelism on a dense model, vllm/v1/engine/core.py {@code run_engine_core} calls
 * {@code reconfigure_for_independent_dp_rank()}, which sets each replica's DP size to 1, and
 * multiproc_executor.py {@code setup_proc_title_and_log_prefix} names a worker {@code Worker},
 * then {@code Worker[_PPp][_TPt]} with {@code _DP} only when the DP group is larger than 1: every
 * replica has its own {@code Worker_TP0}, all printing into one log at the same time, and all
 * loading and profiling together. A restarted process instead appears after the one before it
 * finished its start-up. A label nested under its engine core's prefix
 * ({@code (EngineCore_DP1 pid=9) (Worker_TP0 pid=12)}) is told apart by that DP rank.
 * Several markers of one start (version, args, engine) all appear: the ledger groups them.
 */
final class ServerStarts {

    private static final Pattern MARKER = Pattern.compile(
            "(?i)(vLLM API server version\\s+\\S+|non-default args:|^args:\\s*Namespace|"
                    + "Initializing an? (?:V[01] )?LLM engine(?: \\(v[^)]*\\))?|"
                    + "^\\s*(?:\\$\\s+)?(?:[A-Z][A-Z0-9_]*=\\S*\\s+)*(?:vllm\\s+serve|python3?\\s+-m\\s+vllm)\\b)");
    /** The engine core of a DP rank above 0: EngineCore_DP1 (v0.10+), EngineCore_1 (v0.8-0.9). */
    private static final Pattern OTHER_DP_ENGINE = Pattern.compile("EngineCore_(?:DP)?[1-9]\\d*");
    /**
     * Labels that name one process of a start: {@code EngineCore_0}, {@code EngineCore_DP0},
     * {@code Worker_TP1}, {@code Worker_DP1_PP0_TP1_EP3}, {@code VllmWorker rank=2},
     * {@code VllmWorker PP1_TP0}.
     */
    private static final Pattern NUMBERED = Pattern.compile(
            "[A-Za-z][A-Za-z_]*?(?:_(?:DP|PP|PCP|TP|DCP|EP)?\\d+)+|VllmWorker\\s+(?:rank=\\d+|PP\\d+(?:_TP\\d+)?|TP\\d+)");
    /**
     * Figures a worker or engine core prints at the end of its start-up (the KV cache budget and
     * what it turns into, the graph pool captured after it) or when its start fails.
     */
    private static final Set<Quantity> CLOSING = Set.of(Quantity.KV_CACHE_AVAILABLE, Quantity.AVAILABLE_MEMORY, Quantity.GPU_BLOCKS,
            Quantity.KV_CACHE_TOKENS, Quantity.GRAPH_MEMORY, Quantity.OOM_TRIED);

    /**
     * Per numbered label of the current start (with "_DP" folded, EngineCore_DP0 = EngineCore_0,
     * and the DP rank of an enclosing engine core added): its pids, each with whether that process
     * has printed a closing figure.
     */
    private final Map<String, Map<Long, Boolean>> current = new HashMap<>();

    void read(LogSegment seg, int lineNo, List<Observation> out) {
        String name = name(seg);
        Matcher m = MARKER.matcher(seg.message());
        if (m.find()) {
            boolean otherDpEngine = name != null && m.group(1).toLowerCase().startsWith("initializing")
                    && OTHER_DP_ENGINE.matcher(name).matches();
            if (!otherDpEngine) {
                out.add(VllmLogParser.context(Observation.value(Quantity.SERVER_START, 1, lineNo, m.group(1).strip()), seg));
                current.clear();
                Map<Long, Boolean> pids = pidsOf(seg);
                if (pids != null) {
                    pids.put(seg.pid(), false);
                }
                return;
            }
        }
        Map<Long, Boolean> pids = pidsOf(seg);
        if (pids == null || pids.containsKey(seg.pid())) {
            return;
        }
        if (pids.containsValue(true)) {
            out.add(VllmLogParser.context(Observation.value(Quantity.SERVER_START, 1, lineNo, seg.process()), seg));
            current.clear();
            pids = pidsOf(seg);
        }
        pids.put(seg.pid(), false);
    }

    /** Notes the figures a segment gave, so that a process whose start-up is complete is known. */
    void printed(LogSegment seg, List<Observation> figures) {
        Map<Long, Boolean> pids = pidsOf(seg);
        if (pids != null && figures.stream().anyMatch(o -> CLOSING.contains(o.quantity()))) {
            pids.put(seg.pid(), true);
        }
    }

    /** The pids of the segment's label in the current start, or null for an unnumbered label. */
    private Map<Long, Boolean> pidsOf(LogSegment seg) {
        String name = name(seg);
        if (name == null || seg.pid() == null || !NUMBERED.matcher(name).matches()) {
            return null;
        }
        String key = name.replace("_DP", "_") + (seg.dpRank() == null ? "" : " in DP " + seg.dpRank());
        return current.computeIfAbsent(key, k -> new LinkedHashMap<>());
    }

    private static String name(LogSegment seg) {
        return seg.process() == null ? null : seg.process().replaceFirst("\\s*\\bpid=.*$", "").strip();
    }
}

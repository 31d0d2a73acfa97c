package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Observation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 *       {@code "Initializing a V1 LLM engine (v%s) with config"}; an engine core of DP rank > 0
 *       is part of the same start and is not a marker;</li>
 *   <li>a shell prompt echoing the command ({@code $ vllm serve ...}, {@code $ python -m vllm...}),
 *       as pasted logs hold;</li>
 *   <li>a numbered worker label ({@code EngineCore_0}, {@code EngineCore_DP0},
 *       {@code Worker_TP1}) seen again with another pid: a restarted process (one start has one
 *       process per label).</li>
 * </ul>
 * Several markers of one start (version, args, engine) all appear: the ledger groups them.
 */
final class ServerStarts {

    private static final Pattern MARKER = Pattern.compile(
            "(?i)(vLLM API server version\\s+\\S+|non-default args:|^args:\\s*Namespace|"
                    + "Initializing an? (?:V[01] )?LLM engine(?: \\(v[^)]*\\))?|"
                    + "^\\s*\\$\\s+(?:vllm\\s+serve|python3?\\s+-m\\s+vllm)\\b)");
    private static final Pattern DP_RANK = Pattern.compile("(?i)DP([1-9]\\d*)\\b");
    private static final Pattern NUMBERED = Pattern.compile("^[A-Za-z_]+?_(?:DP|TP|PP)?\\d+(?:_(?:TP|PP|DP)\\d+)*$");

    /** Pid last seen per numbered worker label (with "_DP" folded: EngineCore_DP0 = EngineCore_0). */
    private final Map<String, Long> pids = new HashMap<>();

    void read(LogSegment seg, int lineNo, List<Observation> out) {
        String name = seg.process() == null ? null : seg.process().replaceFirst("\\s*pid=.*$", "").strip();
        Matcher m = MARKER.matcher(seg.message());
        if (m.find()) {
            boolean otherDpEngine = name != null && m.group(1).toLowerCase().startsWith("initializing")
                    && DP_RANK.matcher(name).find();
            if (!otherDpEngine) {
                out.add(context(Observation.value("server_start", 1, lineNo, m.group(1).strip()), seg));
                remember(name, seg.pid());
                return;
            }
        }
        if (name != null && seg.pid() != null && NUMBERED.matcher(name).matches()) {
            String key = name.replace("_DP", "_");
            Long before = pids.put(key, seg.pid());
            if (before != null && !Objects.equals(before, seg.pid())) {
                out.add(context(Observation.value("server_start", 1, lineNo, seg.process()), seg));
            }
        }
    }

    private void remember(String name, Long pid) {
        if (name != null && pid != null && NUMBERED.matcher(name).matches()) {
            pids.put(name.replace("_DP", "_"), pid);
        }
    }

    private static Observation context(Observation o, LogSegment seg) {
        return seg.process() == null ? o : o.withProcess(seg.process()).withPid(seg.pid());
    }
}

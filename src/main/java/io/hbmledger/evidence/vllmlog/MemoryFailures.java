package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Marks the lines where vLLM or vllm-ascend refused to start, or failed, for lack of memory, as
 * {@code memory_failure} observations: value 1, text = the phrase as written, {@code component}
 * = the phase. The figures on the same line (free, total, requested, KV needed and available, the
 * OOM sizes) are read by the phrase rules; this class says that the line is a failure and when.
 *
 * <p>Phases, from the emitting code:
 * <ul>
 *   <li>{@code startup_check}: the free-memory check before any weight is loaded, vllm
 *       v1/worker/gpu_worker.py {@code init_device} (v0.9+), later vllm/v1/worker/utils.py
 *       {@code request_memory} with the device name ({@code "Free memory on device cuda:0 (a/b GiB)
 *       on startup is less than desired GPU memory utilization (u, r GiB)"}); vllm-ascend
 *       vllm_ascend/worker/worker.py {@code _init_device} (v0.16+, NPU wording "Free memory on NPU
 *       device ... desired NPU memory utilization" on newer branches). A line prefixed with kvcached's
 *       "Ignoring GPU free-memory check:" is not a failure.</li>
 *   <li>{@code kv_cache_sizing}: after profiling, vllm v1/core/kv_cache_utils.py
 *       {@code check_enough_kv_cache_memory} ("No available memory for the cache blocks", "... X GiB
 *       KV cache is needed, which is larger than the available KV cache memory (Y GiB)"), V0
 *       engine/llm_engine.py / worker {@code raise_if_cache_size_invalid} ("No available memory for the
 *       cache blocks", "The model's max seq len (N) is larger than the maximum number of tokens that
 *       can be stored in KV cache (M)").</li>
 *   <li>{@code profiling_check}: after the profile run, vllm v1/worker/gpu_worker.py
 *       {@code determine_available_memory} (V0: worker/worker.py {@code determine_num_available_blocks};
 *       vllm-ascend worker.py alike) asserts that free memory fell: "Error in memory profiling. Initial
 *       free memory X, current free memory Y". It failed because free memory did not fall while vLLM
 *       profiled: another process on the device released memory, so the engine cannot size its KV
 *       cache. Not a lack of memory, but the start fails there.</li>
 *   <li>an out-of-memory error ("Tried to allocate", any letter case): phase from what this start
 *       printed before it: {@code model_loading} (nothing yet after the start marker),
 *       {@code memory_profiling} (weights printed, no KV budget yet), {@code after_kv_cache_sizing}
 *       (KV budget, blocks or tokens printed: KV allocation, graph capture, warm-up or serving), and
 *       {@code unknown} when the excerpt holds no start marker and no earlier figure. A Python
 *       traceback printed just before the error names the phase more precisely, and wins (see
 *       {@link TracebackPhase}): {@code model_loading}, {@code memory_profiling},
 *       {@code kv_cache_allocation}, {@code graph_capture} or {@code serving}.</li>
 * </ul>
 */
final class MemoryFailures {

    private static final Pattern START_CHECK = Pattern.compile(
            "(?i)(?<!free-memory check: )Free memory on (?:NPU |GPU )?device\\b.*?is less than desired (?:GPU |NPU )?memory utilization\\s*\\([^)]*\\)");
    private static final Pattern PROFILING_CHECK = Pattern.compile("(?i)Error in memory profiling\\b");
    private static final Pattern KV_SIZING = Pattern.compile(
            "(?i)No available memory for the cache blocks|KV cache is needed, which is larger than the available KV cache memory"
                    + "|max seq len \\(\\d+\\) is larger than the maximum number of tokens that can be stored in KV cache");

    /** The OOM message from its device word on, without a progress bar or log prefix glued before it. */
    private static final Pattern OOM_TEXT = Pattern.compile("(?i)(?:\\b\\w+\\s+)?out of memory\\b.*|tried to allocate.*");

    private enum Stage { NONE, STARTED, WEIGHTS, KV }

    private Stage stage = Stage.NONE;
    private final TracebackPhase traceback = new TracebackPhase();

    /** Cheap test: a lower-case line that may hold a failure phrase. */
    static boolean mayHold(String lower) {
        return lower.contains("free memory on") || lower.contains("cache block") || lower.contains("kv cache is needed")
                || lower.contains("max seq len") || lower.contains("tried to allocate")
                || lower.contains("error in memory profiling")
                || lower.contains("to serve at least"); // a KV refusal wrapped before its figures (WrappedRefusal)
    }

    /** Adds the failure of one segment, if any, after the figures already read from it. */
    void read(LogSegment seg, int lineNo, boolean oom, List<Observation> out) {
        String msg = seg.message();
        Matcher m = START_CHECK.matcher(msg);
        String phase = null;
        String text = null;
        if (m.find()) {
            phase = "startup_check";
            text = m.group();
        } else if ((m = KV_SIZING.matcher(msg)).find()) {
            phase = "kv_cache_sizing";
            text = m.group();
        } else if ((m = PROFILING_CHECK.matcher(msg)).find()) {
            phase = "profiling_check";
            text = m.group();
        } else if (oom) {
            phase = traceback.phase(lineNo).orElse(switch (stage) {
                case NONE -> "unknown";
                case STARTED -> "model_loading";
                case WEIGHTS -> "memory_profiling";
                case KV -> "after_kv_cache_sizing";
            });
            Matcher t = OOM_TEXT.matcher(msg);
            text = t.find() ? t.group().strip() : msg.strip();
        }
        if (phase != null) {
            out.add(VllmLogParser.context(Observation.value(Quantity.MEMORY_FAILURE, 1, lineNo, text).in(Context.builder().component(phase).build()), seg));
        }
    }

    /** Remembers the functions of a traceback's frames, for the phase of an error that follows. */
    void frame(String message, int lineNo) {
        traceback.frame(message, lineNo);
    }

    /** Follows the start-up: a new start, then weights, then the KV budget. */
    void note(List<Observation> figures) {
        for (Observation o : figures) {
            switch (o.quantity()) {
                case SERVER_START -> stage = Stage.STARTED;
                case WEIGHTS -> stage = stage == Stage.KV ? Stage.KV : Stage.WEIGHTS;
                case KV_CACHE_AVAILABLE, AVAILABLE_MEMORY, GPU_BLOCKS, KV_CACHE_TOKENS -> stage = Stage.KV;
                default -> {
                }
            }
        }
    }
}

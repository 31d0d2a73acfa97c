package io.hbmledger.evidence.vllmlog;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The start-up phase a Python traceback shows, from the functions of its frames
 * ({@code File "...", line N, in FUNC}), for an error printed just after it. The function names
 * are those of vLLM and vllm-ascend's workers and model runners (V0 and V1):
 * <ul>
 *   <li>{@code graph_capture}: {@code capture_model}, {@code _capture_graphs}, {@code capture}
 *       (CUDA / ACL graph capture, after the KV cache is allocated);</li>
 *   <li>{@code kv_cache_allocation}: {@code initialize_kv_cache}, {@code initialize_cache},
 *       {@code _init_cache_engine}, {@code _allocate_kv_cache}, {@code _allocate_kv_cache_tensors},
 *       {@code allocate_kv_cache} (not V1 engine core's {@code _initialize_kv_caches}, which wraps
 *       the memory profile, the allocation and the warm-up alike);</li>
 *   <li>{@code memory_profiling}: {@code profile_run}, {@code determine_num_available_blocks}
 *       (V0), {@code determine_available_memory} (V1), {@code _dummy_sampler_run};</li>
 *   <li>{@code model_loading}: {@code load_model}, {@code load_weights}, {@code initialize_model};</li>
 *   <li>{@code serving}: {@code execute_model} with none of the above in the same traceback.</li>
 * </ul>
 * When a traceback holds several, the one listed first here wins: graph capture runs a forward
 * pass, and the memory profile calls {@code execute_model}. Only frames within
 * {@value #REACH} lines before the error count, so that an old traceback does not name a later
 * error's phase.
 */
final class TracebackPhase {

    static final int REACH = 200;

    private static final Pattern FRAME = Pattern.compile("File \"[^\"]*\", line \\d+, in (\\w+)");

    private enum Phase {
        GRAPH_CAPTURE("graph_capture", "capture_model", "_capture_graphs", "capture"),
        KV_CACHE_ALLOCATION("kv_cache_allocation", "initialize_kv_cache", "initialize_cache", "_init_cache_engine",
                "_allocate_kv_cache", "_allocate_kv_cache_tensors", "allocate_kv_cache"),
        MEMORY_PROFILING("memory_profiling", "profile_run", "determine_num_available_blocks",
                "determine_available_memory", "_dummy_sampler_run"),
        MODEL_LOADING("model_loading", "load_model", "load_weights", "initialize_model"),
        SERVING("serving", "execute_model");

        final String component;
        final java.util.Set<String> functions;

        Phase(String component, String... functions) {
            this.component = component;
            this.functions = java.util.Set.of(functions);
        }
    }

    private record Frame(int line, Phase phase) {
    }

    private final Deque<Frame> frames = new ArrayDeque<>();

    void frame(String message, int lineNo) {
        if (message.indexOf("File \"") < 0) {
            return;
        }
        Matcher m = FRAME.matcher(message);
        if (!m.find()) {
            return;
        }
        for (Phase p : Phase.values()) {
            if (p.functions.contains(m.group(1))) {
                frames.addLast(new Frame(lineNo, p));
                if (frames.size() > 64) {
                    frames.removeFirst();
                }
                return;
            }
        }
    }

    /** The phase the recent traceback shows for an error on line lineNo, if any. */
    Optional<String> phase(int lineNo) {
        Phase best = null;
        for (Frame f : frames) {
            if (lineNo - f.line() <= REACH && lineNo >= f.line() && (best == null || f.phase().ordinal() < best.ordinal())) {
                best = f.phase();
            }
        }
        return Optional.ofNullable(best).map(p -> p.component);
    }
}

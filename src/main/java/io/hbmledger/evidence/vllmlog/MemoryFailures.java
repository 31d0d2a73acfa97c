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
 *       printed before it, the latest of: {@code model_loading} (a loading line: "Starting to load
 *       model", the checkpoint shards bar), {@code memory_profiling} (weights printed, no KV budget
 *       yet), {@code after_kv_cache_sizing} (KV budget, blocks or tokens printed: KV allocation,
 *       graph capture, warm-up or serving), and {@code unknown} when none was printed since the
 *       start marker (an excerpt cut before the phase lines: the phase is not guessed). A Python
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

    /**
     * Lines printed while the weights load, before vLLM's "Loading model weights took" / "Model
     * loading took": the model runner's "Starting to load model X..." (vLLM V0 and V1,
     * vllm-ascend), weight_utils' "Using model weights format", the loaders' "Loading
     * safetensors checkpoint shards" / "Loading pt checkpoint shards" bars and default_loader's
     * "Loading weights took N seconds" (read, not yet placed).
     */
    private static final Pattern LOADING = Pattern.compile(
            "Starting to load model|Using model weights format|Loading \\w+ checkpoint shards|Loading weights took");

    /** Lines of the latest start's phases, 0 when not printed since it. */
    private int startedAt;
    private int loadingAt;
    private int weightsAt;
    private int kvAt;
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
            phase = traceback.phase(lineNo).orElse(printedPhase());
            Matcher t = OOM_TEXT.matcher(msg);
            text = t.find() ? t.group().strip() : msg.strip();
        }
        if (phase != null) {
            out.add(VllmLogParser.context(Observation.value(Quantity.MEMORY_FAILURE, 1, lineNo, text).in(Context.builder().component(phase).build()), seg));
        }
    }

    /**
     * The phase the latest line of the start-up shows: loading lines, the weights figure, the KV
     * budget. A start marker alone shows none (an excerpt cut before the phase lines, or a start
     * that failed before loading): unknown, not guessed.
     */
    private String printedPhase() {
        int latest = Math.max(Math.max(startedAt, loadingAt), Math.max(weightsAt, kvAt));
        if (latest == 0) {
            return "unknown";
        }
        return latest == kvAt ? "after_kv_cache_sizing" : latest == weightsAt ? "memory_profiling"
                : latest == loadingAt ? "model_loading" : "unknown";
    }

    /**
     * Remembers the functions of a traceback's frames, for the phase of an error that follows, and
     * the lines printed while the weights load.
     */
    void frame(String message, int lineNo) {
        traceback.frame(message, lineNo);
        // after the KV budget a loading line is not the start's (a LoRA adapter loaded while serving)
        if (kvAt == 0 && message.indexOf("oad") >= 0 && LOADING.matcher(message).find()) {
            loadingAt = lineNo;
        }
    }

    /** Follows the start-up: a new start, then weights, then the KV budget. */
    void note(List<Observation> figures) {
        for (Observation o : figures) {
            switch (o.quantity()) {
                case SERVER_START -> {
                    startedAt = o.line();
                    loadingAt = loadingAt == o.line() ? loadingAt : 0;
                    weightsAt = 0;
                    kvAt = 0;
                }
                // a weights line after the KV budget (a drafter's) does not take the start back to profiling
                case WEIGHTS -> weightsAt = kvAt > 0 ? weightsAt : o.line();
                case KV_CACHE_AVAILABLE, AVAILABLE_MEMORY, GPU_BLOCKS, KV_CACHE_TOKENS -> kvAt = o.line();
                default -> {
                }
            }
        }
    }
}

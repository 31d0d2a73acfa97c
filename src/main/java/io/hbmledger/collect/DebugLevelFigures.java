package io.hbmledger.collect;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.vllmlog.VllmLogParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Says when a server log lacks the memory figures that vLLM prints only at DEBUG level, so that a
 * run of a server started without {@code VLLM_LOGGING_LEVEL=DEBUG} (an attached one, or one
 * started with {@code --env VLLM_LOGGING_LEVEL=INFO}) carries a reason instead of silently
 * giving fewer ledger lines.
 *
 * <p>The DEBUG-only lines, by source:
 * <ul>
 *   <li>vllm/v1/worker/gpu_worker.py {@code determine_available_memory} (v0.9 on):
 *       {@code logger.debug("Initial free memory: %.2f GiB; Requested memory: %.2f (util), %.2f
 *       GiB", ...)} and {@code logger.debug(profile_result)}, the MemoryProfilingResult line
 *       "Memory profiling takes ... torch peak memory increase: ...; non-torch forward increase
 *       memory: ...". Only "Available KV cache memory" next to them is INFO.</li>
 *   <li>the same file's {@code compile_or_warm_up_model} in recent builds: {@code
 *       logger.debug(msg)} for "Free memory on device (a/b GiB) on startup ... GiB for weight, ...
 *       for peak activation, ... for non-torch memory, ... for CUDAGraph memory ...
 *       --kv-cache-memory=N" (INFO in v0.10.2-v0.11).</li>
 *   <li>vllm_ascend/worker/worker.py {@code determine_available_memory}: {@code
 *       logger.debug(profile_result)} as above.</li>
 * </ul>
 * V0 (worker/worker.py) prints its memory summary at INFO, and the INFO lines ("Model loading
 * took", "Available KV cache memory", "GPU KV cache size", "Graph capturing finished") are there
 * at any level, so only the activation peak and non-torch figures tell whether the split was
 * printed.
 */
final class DebugLevelFigures {

    /** Quantities whose only source in V1 logs is a DEBUG line, with the words the reason uses. */
    private static final Map<Quantity, String> DEBUG_ONLY = debugOnly();

    /** Figures printed once the engine has sized its KV cache: the log reaches past the profiling. */
    private static final Set<Quantity> KV_SIZED = Set.of(Quantity.KV_CACHE_AVAILABLE, Quantity.AVAILABLE_MEMORY, Quantity.KV_CACHE_TOKENS, Quantity.GPU_BLOCKS);

    private DebugLevelFigures() {
    }

    private static Map<Quantity, String> debugOnly() {
        Map<Quantity, String> m = new LinkedHashMap<>();
        m.put(Quantity.ACTIVATION_PEAK, "activation peak");
        m.put(Quantity.NON_TORCH, "non-torch memory");
        m.put(Quantity.FREE_MEMORY_AT_START, "free memory at start");
        m.put(Quantity.INSTANCE_BUDGET, "requested budget (total x gpu_memory_utilization)");
        m.put(Quantity.PROFILING_SECONDS, "profiling time");
        m.put(Quantity.KV_CACHE_SUGGESTED, "suggested --kv-cache-memory");
        return m;
    }

    /**
     * @param log the parsed server log
     * @return the reason to record, or empty when the log has DEBUG records, already holds the
     *     memory split, or never got as far as sizing the KV cache (then something else is missing)
     */
    static Optional<String> missing(VllmLogParser.Result log) {
        if (log.debugRecords()) {
            return Optional.empty();
        }
        Set<Quantity> seen = log.observations().stream().map(Observation::quantity).collect(Collectors.toSet());
        boolean sized = seen.stream().anyMatch(KV_SIZED::contains);
        if (!sized || seen.contains(Quantity.ACTIVATION_PEAK) && seen.contains(Quantity.NON_TORCH)) {
            return Optional.empty();
        }
        List<String> lacking = new ArrayList<>();
        DEBUG_ONLY.forEach((q, words) -> {
            if (!seen.contains(q)) {
                lacking.add(words);
            }
        });
        return Optional.of("the server log has no DEBUG records (the server was not started with"
                + " VLLM_LOGGING_LEVEL=DEBUG) and vLLM / vllm-ascend V1 print part of their memory split only at"
                + " DEBUG level, so the ledger will have no " + String.join(", ", lacking) + " from the log;"
                + " to get them, restart the server with VLLM_LOGGING_LEVEL=DEBUG ('hbm-ledger exec start' sets it"
                + " unless --env VLLM_LOGGING_LEVEL=... overrides it) and collect again");
    }
}

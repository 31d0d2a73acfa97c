package io.hbmledger.verdict;

/**
 * What a server instance's evidence can say about its memory budget. Byte facts are in bytes,
 * the others are plain values; each is held as a {@link Figure} with its source.
 */
public enum Fact {
    /** gpu_memory_utilization, the instance's share of the total (0..1). */
    UTILIZATION,
    /** The total the engine saw (torch's mem_get_info total): less than the device capacity. */
    TOTAL_SEEN,
    /** Free memory the engine saw when it started (the V1 start check). */
    FREE_AT_START,
    /**
     * Free memory after the profile run, as vLLM's failed check prints it ("Error in memory profiling.
     * Initial free memory X, current free memory Y"): only that failure prints it.
     */
    FREE_AFTER_PROFILE,
    /** utilization x total as the engine printed it (V1 start check, V0 "can use" line). */
    REQUESTED,
    WEIGHTS,
    NON_TORCH,
    ACTIVATION_PEAK,
    /** The KV cache the engine sized (may be negative in V0's profiling line). */
    KV_CACHE,
    /**
     * vllm-ascend's "Available memory: N" (worker_v1.py determine_available_memory): its KV budget,
     * max(utilization x total - peak, 0), where the peak adds everything the device holds outside
     * this process's torch allocator (mem_get_info's total - free - torch's current bytes), other
     * processes' memory included. Stands for {@link #KV_CACHE} when the log prints no "Available KV
     * cache memory".
     */
    DEVICE_WIDE_KV_BUDGET,
    /** KV cache vLLM says one request at max_model_len needs (V1's refusal). */
    KV_NEEDED,
    GPU_BLOCKS,
    CPU_BLOCKS,
    /** KV cache capacity in tokens (V1 "GPU KV cache size: N tokens"). */
    KV_TOKENS,
    MAX_MODEL_LEN,
    /** vLLM's estimate of the longest request the KV cache it has can hold (V1's refusal), tokens. */
    ESTIMATED_MAX_MODEL_LEN,
    /** KV cache bytes per token over all layers of one rank (config.json or vLLM's figures). */
    KV_BYTES_PER_TOKEN,
    MAX_CONCURRENCY,
    GRAPH_POOL,
    /** An out-of-memory error: what the allocation asked, and what was free and total then. */
    OOM_TRIED,
    OOM_FREE,
    OOM_TOTAL,
    /** Bytes in tensors when the OOM struck (PyTorch's allocated). */
    OOM_ALLOCATED,
    /** Bytes PyTorch's allocator held (torch_npu / torch before 2.1: "reserved in total"). */
    OOM_RESERVED,
    /** Bytes the allocator held with no tensor in them (torch 2.1+). */
    OOM_RESERVED_UNALLOCATED,
    /** The failing process's whole footprint on the device (torch 2.1+). */
    OOM_THIS_PROCESS,
    /** The instance's tensor-parallel size as its start command or config printed it: a count. */
    TENSOR_PARALLEL
}

package io.hbmledger.ledger;

/**
 * Ledger component names (report-v1 {@code component}). The first group is the contract's;
 * the second group was added by this project and keeps its meaning too.
 */
public final class Component {

    private Component() {
    }

    public static final String DRIVER_BASELINE = "driver_baseline";
    public static final String WEIGHTS = "weights";
    public static final String KV_CACHE = "kv_cache";
    public static final String GRAPH_POOL = "graph_pool";
    public static final String ACTIVATION_PEAK = "activation_peak";
    public static final String NON_TORCH = "non_torch";
    public static final String HCCL = "hccl";
    public static final String CANN_RUNTIME = "cann_runtime";
    public static final String OTHER_MODULES = "other_modules";
    public static final String ALLOCATOR_CACHE = "allocator_cache";
    public static final String OTHER_PROCESSES = "other_processes";
    public static final String RESIDUAL = "residual";

    /**
     * vLLM's start-up profile peak minus the weights, when vllm-ascend prints only the KV budget
     * ("Available memory"): the activation peak of the profile run plus non-torch memory, one lump.
     */
    public static final String PROFILE_PEAK_REST = "activation_peak_and_non_torch";
    /** PyTorch's allocated bytes from an out-of-memory message (weights, KV and activations together). */
    public static final String TORCH_ALLOCATED = "torch_allocated";
    /** The serving processes' memory from the npu-smi process table, not split further. */
    public static final String SERVER_PROCESSES = "server_processes";
    /** NCCL's device buffers (NVIDIA runs), the counterpart of {@link #HCCL}. */
    public static final String NCCL = "nccl";
    /** The CUDA context and library workspaces (NVIDIA runs), the counterpart of {@link #CANN_RUNTIME}. */
    public static final String CUDA_RUNTIME = "cuda_runtime";
    /** nvidia-smi's memory.reserved: held back by the driver, in neither used nor free. */
    public static final String DRIVER_RESERVED = "driver_reserved";
    /** Device used minus the memory of every listed process: driver, firmware, runtime. */
    public static final String OUTSIDE_PROCESSES = "outside_processes";
}

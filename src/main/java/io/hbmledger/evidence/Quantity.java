package io.hbmledger.evidence;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What an {@link Observation} measures. Each constant carries its snake_case name from
 * {@code shared/contracts/evidence-v1.md} (printed as {@code quantity} by {@code evidence});
 * the names are a public interface: add constants, never rename one.
 */
public enum Quantity {
    // npu-smi (npu-smi-info, npu-smi-usages); rates are values in percent
    HBM_USED("hbm_used"),
    HBM_TOTAL("hbm_total"),
    MEMORY_USED("memory_used"),
    MEMORY_TOTAL("memory_total"),
    PROCESS_MEMORY("process_memory"),
    /** npu-smi's process table of a chip that lists no process: a count of 0, so the table is known to be empty. */
    PROCESS_COUNT("process_count"),
    HBM_CAPACITY("hbm_capacity"),
    HBM_USAGE_RATE("hbm_usage_rate"),
    MEMORY_CAPACITY("memory_capacity"),
    MEMORY_USAGE_RATE("memory_usage_rate"),
    // nvidia-smi (nvidia-smi, nvidia-smi-csv); process rows use PROCESS_MEMORY
    FB_USED("fb_used"),
    FB_TOTAL("fb_total"),
    /** nvidia-smi's memory.reserved: held back by the driver, counted neither in used nor in free. */
    FB_RESERVED("fb_reserved"),
    // vLLM and vllm-ascend logs (vllm-log)
    WEIGHTS("weights"),
    WEIGHTS_LOAD_SECONDS("weights_load_seconds"),
    KV_CACHE_AVAILABLE("kv_cache_available"),
    KV_CACHE_TOKENS("kv_cache_tokens"),
    GPU_BLOCKS("gpu_blocks"),
    CPU_BLOCKS("cpu_blocks"),
    MAX_CONCURRENCY("max_concurrency"),
    TOTAL_MEMORY("total_memory"),
    MEMORY_UTILIZATION("memory_utilization"),
    INSTANCE_BUDGET("instance_budget"),
    ACTIVATION_PEAK("activation_peak"),
    NON_TORCH("non_torch"),
    GRAPH_MEMORY("graph_memory"),
    AVAILABLE_MEMORY("available_memory"),
    FREE_MEMORY_AT_START("free_memory_at_start"),
    KV_CACHE_SUGGESTED("kv_cache_suggested"),
    PROFILING_SECONDS("profiling_seconds"),
    OOM_TRIED("oom_tried"),
    OOM_TOTAL_CAPACITY("oom_total_capacity"),
    OOM_ALLOCATED("oom_allocated"),
    OOM_FREE("oom_free"),
    OOM_RESERVED("oom_reserved"),
    /** torch 2.1+ OOM: memory the allocator holds but no tensor uses (its cache) */
    OOM_RESERVED_UNALLOCATED("oom_reserved_unallocated"),
    /** torch 2.1+ OOM: allocated in private pools (CUDA/ACL graphs), part of the reserved memory */
    OOM_PRIVATE_POOLS("oom_private_pools"),
    /** torch 2.1+ OOM: the failing process's whole footprint on the device, PyTorch or not */
    OOM_THIS_PROCESS("oom_this_process"),
    /** torch 2.1+ OOM: "Process N has X memory in use", one per process the driver lists; pid = N */
    OOM_PROCESS_IN_USE("oom_process_in_use"),
    // vLLM refusals and KV sizing (readme-vllmlog.md, vllm-budget.md)
    KV_CACHE_NEEDED("kv_cache_needed"),
    ESTIMATED_MAX_MODEL_LEN("estimated_max_model_len"),
    NON_KV_CACHE_MEMORY("non_kv_cache_memory"),
    INITIAL_MEMORY_USAGE("initial_memory_usage"),
    MEMORY_USAGE_POST_PROFILE("memory_usage_post_profile"),
    /**
     * free device memory after vLLM's profile run, as its failed consistency check prints it
     * ("Error in memory profiling. Initial free memory X, current free memory Y"): Y not below X
     * means memory was released on the device while vLLM profiled
     */
    FREE_MEMORY_AFTER_PROFILE("free_memory_after_profile"),
    // NCCL_DEBUG=INFO lines printed into the vLLM log (readme-vllmlog.md, "NCCL")
    /** device memory NCCL says it allocated, one observation per allocation (NCCL_DEBUG_SUBSYS=ALLOC or P2P); device = cuda:N, the process-local index */
    NCCL_ALLOCATED("nccl_allocated"),
    /** NCCL_BUFFSIZE as NCCL echoes it when set by the environment (bytes) */
    NCCL_BUFFSIZE("nccl_buffsize"),
    /** a communicator's collective channels ("N coll channels, ..."), a count */
    NCCL_CHANNELS("nccl_channels"),
    /** a refusal or error for lack of memory: value 1, text = the phrase, component = the phase. */
    MEMORY_FAILURE("memory_failure"),
    // vLLM deployment, from the start command, the args and engine config records
    /** value 1, text = the model as written */
    MODEL("model"),
    TENSOR_PARALLEL_SIZE("tensor_parallel_size"),
    PIPELINE_PARALLEL_SIZE("pipeline_parallel_size"),
    DATA_PARALLEL_SIZE("data_parallel_size"),
    /**
     * the DP rank one process runs ({@code VLLM_DP_RANK=r}, {@code --data-parallel-rank r}): the
     * process is that one replica of a deployment of data_parallel_size replicas; component = the
     * environment variable when it came from one
     */
    DATA_PARALLEL_RANK("data_parallel_rank"),
    MAX_MODEL_LEN("max_model_len"),
    /** 1 or 0 */
    ENFORCE_EAGER("enforce_eager"),
    /** bytes per KV element of the named dtype (a value), text = the dtype */
    KV_CACHE_DTYPE_BYTES("kv_cache_dtype_bytes"),
    /** how many devices a *_VISIBLE_DEVICES variable lists; text = the list, component = the variable */
    VISIBLE_DEVICES("visible_devices"),
    /** value 1, text = the version */
    VLLM_VERSION("vllm_version"),
    /** 0 (V0) or 1 (V1) */
    ENGINE_VERSION("engine_version"),
    /**
     * value 1, text = the device type vLLM runs on as it prints it, lower case: {@code cuda} (NVIDIA,
     * also ROCm builds), {@code npu} (vllm-ascend), {@code xpu}, {@code hpu}, {@code tpu}, {@code cpu}
     */
    DEVICE_TYPE("device_type"),
    /** a line where a vLLM server (or engine core) starts: value 1; marks where each start's figures begin. */
    SERVER_START("server_start"),
    /** made by {@code analyze}, not by a parser: how many server starts a log holds before the one used. */
    EARLIER_SERVER_START("earlier_server_start"),
    /**
     * pasted-text prose (user-statement): another serving program than vLLM that the text names
     * (an embedding server's image, Ollama, TGI ...), which holds memory of its own where it shares
     * a card: value 1, text = the name as written, context.component = the program's usual name.
     */
    OTHER_SERVICE("other_service"),
    /**
     * pasted-text prose (user-statement): the fix a person reports was rolling a serving program
     * back to an older image or version ("镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后解决", "rolling
     * TEI back to 1.5 fixed it"): value 1, text = the image or version rolled back to, as written,
     * context.component = the program's usual name.
     */
    ROLLBACK_FIX("rollback_fix"),
    /**
     * pasted-text container command (container-command): an accelerator a {@code docker run} /
     * {@code podman run} command gives its container, one per {@code --device /dev/davinciN}:
     * value = N, the NPU's id on the host; text = the flag as written; context.component = the
     * serving program the command runs ("vLLM" for a vllm image or command, else the program
     * {@link ServingPrograms} names in it), null when it names none.
     */
    CONTAINER_DEVICE("container_device"),
    /**
     * PyTorch's allocator setting in the environment a paste or log shows ({@code
     * PYTORCH_CUDA_ALLOC_CONF}, torch_npu's {@code PYTORCH_NPU_ALLOC_CONF}): value 1 when it turns
     * {@code expandable_segments} on, else 0; text = the variable's value as written,
     * context.component = the variable.
     */
    EXPANDABLE_SEGMENTS("expandable_segments"),
    // msprof and torch_npu profiler exports (msprof-csv, msprof-db)
    MODULE_RESERVED_PEAK("module_reserved_peak"),
    APP_HBM_PEAK("app_hbm_peak"),
    DEVICE_HBM_PEAK("device_hbm_peak"),
    ALLOCATED_PEAK("allocated_peak"),
    RESERVED_PEAK("reserved_peak"),
    ACTIVE_PEAK("active_peak"),
    OPERATOR_BYTES_TOTAL("operator_bytes_total"),
    OPERATOR_BYTES_UNRELEASED("operator_bytes_unreleased"),
    OPERATOR_COUNT("operator_count"),
    STATIC_GRAPH_TOTAL("static_graph_total"),
    // safetensors, index.json and Git LFS pointers
    TENSOR_BYTES_TOTAL("tensor_bytes_total"),
    TENSOR_COUNT("tensor_count"),
    HEADER_BYTES("header_bytes"),
    TOTAL_SIZE("total_size"),
    SHARD_COUNT("shard_count"),
    LFS_OBJECT_SIZE("lfs_object_size"),
    // config.json (model-config); KV_BYTES_PER_TOKEN is bytes, the rest counts
    NUM_LAYERS("num_layers"),
    HIDDEN_SIZE("hidden_size"),
    NUM_ATTENTION_HEADS("num_attention_heads"),
    NUM_KV_HEADS("num_kv_heads"),
    HEAD_DIM("head_dim"),
    VOCAB_SIZE("vocab_size"),
    NUM_EXPERTS("num_experts"),
    NUM_SHARED_EXPERTS("num_shared_experts"),
    NUM_EXPERTS_PER_TOKEN("num_experts_per_token"),
    INTERMEDIATE_SIZE("intermediate_size"),
    MOE_INTERMEDIATE_SIZE("moe_intermediate_size"),
    KV_LORA_RANK("kv_lora_rank"),
    QK_ROPE_HEAD_DIM("qk_rope_head_dim"),
    NUM_MTP_LAYERS("num_mtp_layers"),
    KV_BYTES_PER_TOKEN("kv_bytes_per_token");

    /** The figures of one "out of memory" message (PyTorch's CUDA / NPU allocator). */
    public static final Set<Quantity> OUT_OF_MEMORY =
            Collections.unmodifiableSet(EnumSet.of(OOM_TRIED, OOM_TOTAL_CAPACITY, OOM_ALLOCATED, OOM_FREE, OOM_RESERVED,
                    OOM_RESERVED_UNALLOCATED, OOM_PRIVATE_POOLS, OOM_THIS_PROCESS, OOM_PROCESS_IN_USE));

    private final String contractName;

    Quantity(String contractName) {
        this.contractName = contractName;
    }

    /** The snake_case name of evidence-v1. */
    public String contractName() {
        return contractName;
    }

    @Override
    public String toString() {
        return contractName;
    }
}

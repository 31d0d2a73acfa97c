package io.hbmledger.evidence.vllmlog;

import static io.hbmledger.evidence.vllmlog.PhraseRule.AMOUNT;
import static io.hbmledger.evidence.vllmlog.PhraseRule.AMOUNT_STRICT;
import static io.hbmledger.evidence.vllmlog.PhraseRule.NUMBER;
import static io.hbmledger.evidence.vllmlog.PhraseRule.NUMBER_STRICT;
import static io.hbmledger.evidence.vllmlog.PhraseRule.any;
import static io.hbmledger.evidence.vllmlog.PhraseRule.first;
import static io.hbmledger.evidence.vllmlog.PhraseRule.scoped;

import io.hbmledger.evidence.NulLines;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.Quote;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.evidence.command.AllocatorConf;
import io.hbmledger.evidence.command.PythonEngineCall;
import io.hbmledger.evidence.command.ServeCommand;
import io.hbmledger.evidence.command.TorchrunCommand;
import io.hbmledger.evidence.vllmlog.PhraseRule.Kind;
import io.hbmledger.evidence.vllmlog.PhraseRule.Scope;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the memory figures of a vLLM or vllm-ascend log (V0 and V1, early 2024 onwards):
 * pure, text in, observations and warnings out.
 *
 * <p>Each LF-terminated line (numbered as {@link TextLines} does) is split at carriage returns,
 * cleaned of colour codes, and its worker prefix becomes the observation's {@code process}.
 * Every phrase in {@link #RULES} is then looked for in the message. A phrase whose number
 * cannot be read gives a warning naming the line, and no observation: absent, never 0.
 *
 * <p>Source format: the logger output of vLLM v0.3 (early 2024, "Loading model weights took
 * 244.61 MB") through the V0 worker summaries (v0.6.5-v0.8) and the V1 engine (v0.8 onwards,
 * "Model loading took X GiB", "Free memory on device (a/b GiB)"), and of vllm-ascend's V0 and
 * V1 workers. Memory amounts become bytes: GiB and vLLM's "GB" x 2^30, MiB and early "MB"
 * x 2^20, KiB x 2^10; vllm-ascend's unit-less "Available memory: N, total memory: M" and
 * {@code --kv-cache-memory=N} are bytes (see {@link Amounts}). Counts, ratios and seconds are
 * values. Nothing is thrown for bad content; the stream variant throws only I/O errors.
 */
public final class VllmLogParser {

    /**
     * What was read: observations in file order, and warnings like {@code "line 7: ..."}.
     *
     * @param debugRecords true when the log holds at least one DEBUG-level logger record, i.e. the
     *     server ran with {@code VLLM_LOGGING_LEVEL=DEBUG}: some memory figures are printed only then
     */
    public record Result(List<Observation> observations, List<String> warnings, boolean debugRecords) {
        public Result {
            observations = List.copyOf(observations);
            warnings = List.copyOf(warnings);
        }
    }

    private static final String IF = "(?i)";

    /**
     * The phrasings, each with the source that prints it (vllm-project/vllm unless noted).
     */
    static final List<PhraseRule> RULES = List.of(
            // worker/model_runner.py load_model (V0): logger.info("Loading model weights took
            // %.4f GB", m.consumed_memory / float(2**30)); vllm_ascend model_runner.py and
            // model_runner_v1.py load_model print the same line. Early-2024 builds wrote MB.
            any("loading model weights took", Quantity.WEIGHTS, "Loading model weights took\\s+" + AMOUNT, Kind.AMOUNT),
            // v1/worker/gpu_model_runner.py load_model: "Model loading took %.4f GiB and %.6f
            // seconds" (m.consumed_memory / GiB_bytes); later "... GiB memory and ... seconds".
            any("model loading took", Quantity.WEIGHTS, "Model loading took\\s+" + AMOUNT, Kind.AMOUNT),
            any("model loading took", Quantity.WEIGHTS_LOAD_SECONDS, "Model loading took\\s+[^,;]*?\\band\\s+" + NUMBER + "\\s*(?:seconds|secs?|s)\\b", Kind.VALUE),
            // model_executor/model_loader/default_loader.py: "Loading weights took %.2f seconds".
            any("loading weights took", Quantity.WEIGHTS_LOAD_SECONDS, "Loading weights took\\s+" + NUMBER, Kind.VALUE),
            // worker/worker.py determine_num_available_blocks (v0.6.5-v0.8): "model weights
            // take %.2fGiB; non_torch_memory takes %.2fGiB; PyTorch activation peak memory
            // takes %.2fGiB; the rest of the memory reserved for KV Cache is %.2fGiB." with
            // x / GiB_bytes; the short-lived table (PR 10511) writes the same names, no "takes".
            any("model weights take", Quantity.WEIGHTS, IF + "model weights take\\s+" + AMOUNT, Kind.AMOUNT),
            any("weights_memory", Quantity.WEIGHTS, "\\bweights_memory\\s*[=:]\\s*" + AMOUNT, Kind.AMOUNT_OR_BYTES),
            any("non_torch_memory", Quantity.NON_TORCH, "\\bnon_torch_memory(?:\\s+takes)?(?:\\s*[=:]\\s*|\\s+)" + AMOUNT, Kind.AMOUNT),
            any("activation peak memory", Quantity.ACTIVATION_PEAK, IF + "PyTorch activation peak memory(?:\\s+takes)?\\s+" + AMOUNT, Kind.AMOUNT),
            any("reserved for kv cache", Quantity.KV_CACHE_AVAILABLE, IF + "the rest of the memory reserved for KV Cache is\\s+" + AMOUNT, Kind.AMOUNT),
            // vllm-ascend worker_v1.py debug line writes "available_kv_cache_memory=%s" in bytes.
            any("available_kv_cache_memory", Quantity.KV_CACHE_AVAILABLE, "\\bavailable_kv_cache_memory(?:\\s*[=:]\\s*|\\s+|$)" + AMOUNT, Kind.AMOUNT_OR_BYTES),
            // One-line form of PR 10511 (v0.6.5): "Memory profiling results: duration=%.2f
            // seconds, total_gpu_memory=%.2fGiB, ..., non_torch_memory=%.2fGiB,
            // kv_cache_size=%.2fGiB, gpu_memory_utilization=%.2f." peak_torch_memory there
            // includes the weights, so it is not an activation peak and is not read.
            any("kv_cache_size", Quantity.KV_CACHE_AVAILABLE, "\\bkv_cache_size\\s*=\\s*" + AMOUNT, Kind.AMOUNT),
            scoped("duration", Quantity.PROFILING_SECONDS, "\\bduration\\s*=\\s*" + NUMBER_STRICT, Kind.VALUE, Scope.PROFILING_PAIRS),
            scoped("duration", Quantity.PROFILING_SECONDS, "^duration\\s+" + NUMBER, Kind.VALUE, Scope.PROFILING_TABLE),
            // v1/worker/gpu_worker.py determine_available_memory: "Available KV cache memory:
            // %.2f GiB" (available_kv_cache_memory / GiB_bytes); may be negative.
            any("available kv cache memory:", Quantity.KV_CACHE_AVAILABLE, IF + "Available KV cache memory:\\s*" + AMOUNT, Kind.AMOUNT),
            any("memory profiling takes", Quantity.PROFILING_SECONDS, IF + "Memory profiling takes\\s+" + NUMBER, Kind.VALUE),
            // "the current vLLM instance can use total_gpu_memory (%.2fGiB) x
            // gpu_memory_utilization (%.2f) = %.2fGiB" (worker/worker.py), and the table rows.
            any("total_gpu_memory", Quantity.TOTAL_MEMORY, "\\btotal_gpu_memory(?:\\s*[=(]\\s*|\\s+)" + AMOUNT, Kind.AMOUNT),
            any("gpu_memory_utilization", Quantity.MEMORY_UTILIZATION, "\\bgpu_memory_utilization(?:\\s*[=(:]\\s*|'\\s*:\\s*|\\s+)" + NUMBER_STRICT + "(?![\\d.]*[A-Za-z])", Kind.VALUE),
            // v1/worker/gpu_worker.py (v0.21+) "The current --gpu-memory-utilization=%.4f is equivalent
            // to --gpu-memory-utilization=%.4f without CUDA graph memory profiling": the second is a what-if.
            any("utilization", Quantity.MEMORY_UTILIZATION, "(?<!equivalent to )--gpu[-_]memory[-_]utilization(?:=|\\s+)" + NUMBER_STRICT, Kind.VALUE),
            any("gpu_memory_utilization", Quantity.INSTANCE_BUDGET, "\\bgpu_memory_utilization\\s*\\([^)]*\\)\\s*=\\s*" + AMOUNT, Kind.AMOUNT),
            any("instance can use", Quantity.INSTANCE_BUDGET, IF + "the current vLLM instance can use\\s+(?!total_gpu_memory)" + AMOUNT, Kind.AMOUNT),
            // v1/worker/gpu_worker.py (v0.8+) logs MemoryProfilingResult.__repr__ (vllm/utils
            // mem_utils): "Memory profiling takes %.2f seconds. Total non KV cache memory: XGiB;
            // torch peak memory increase: XGiB; non-torch forward increase memory: XGiB; weights
            // memory: XGiB." (format_gib = bytes / GiB_bytes); vllm-ascend's copy starts with
            // "Total npu memory: X GiB;". "Total non KV cache memory" has no contract quantity.
            any("torch peak memory increase:", Quantity.ACTIVATION_PEAK, IF + "torch peak memory increase:\\s*" + AMOUNT, Kind.AMOUNT),
            any("non-torch forward increase memory:", Quantity.NON_TORCH, IF + "non-torch forward increase memory:\\s*" + AMOUNT, Kind.AMOUNT),
            any("weights memory:", Quantity.WEIGHTS, IF + "\\bweights memory:\\s*" + AMOUNT, Kind.AMOUNT),
            any("total npu memory:", Quantity.TOTAL_MEMORY, IF + "Total npu memory:\\s*" + AMOUNT, Kind.AMOUNT),
            // same worker, debug: "Initial free memory: %.2f GiB; Requested memory: %.2f (util),
            // %.2f GiB" (init_snapshot.free_memory, gpu_memory_utilization, requested_memory).
            any("initial free memory:", Quantity.FREE_MEMORY_AT_START, IF + "Initial free memory:\\s*" + AMOUNT, Kind.AMOUNT),
            any("requested memory:", Quantity.MEMORY_UTILIZATION, IF + "Requested memory:\\s*" + NUMBER_STRICT + "\\s*\\(util\\)", Kind.VALUE),
            any("requested memory:", Quantity.INSTANCE_BUDGET, IF + "Requested memory:\\s*[^,;]*\\(util\\),\\s*" + AMOUNT, Kind.AMOUNT),
            // v1/worker/gpu_worker.py (v0.11+): "Free memory on device (%.2f/%.2f GiB) on startup.
            // Desired GPU memory utilization is (%s, %.2f GiB). Actual usage is %.2f GiB for
            // weight, %.2f GiB for peak activation, %.2f GiB for non-torch memory, and %.2f GiB
            // for CUDAGraph memory. Replace gpu_memory_utilization config with
            // `--kv-cache-memory=%d` to fit into requested memory, or `--kv-cache-memory=%d` to
            // fully utilize gpu memory." The free/total pair is read by FREE_ON_DEVICE below.
            any("memory utilization", Quantity.MEMORY_UTILIZATION, IF + "desired (?:GPU |NPU )?memory utilization(?:\\s+is)?\\s*\\(\\s*" + NUMBER_STRICT, Kind.VALUE),
            any("memory utilization", Quantity.INSTANCE_BUDGET, IF + "desired (?:GPU |NPU )?memory utilization(?:\\s+is)?\\s*\\([^,)]*,\\s*" + AMOUNT, Kind.AMOUNT),
            any(" for weight", Quantity.WEIGHTS, AMOUNT_STRICT + "\\s+for weights?\\b", Kind.AMOUNT),
            any("for peak activation", Quantity.ACTIVATION_PEAK, AMOUNT_STRICT + "\\s+for peak activation", Kind.AMOUNT),
            any("for non-torch memory", Quantity.NON_TORCH, AMOUNT_STRICT + "\\s+for non-torch memory", Kind.AMOUNT),
            // vllm-ascend's copy of that summary (vllm_ascend/worker/worker.py compile_or_warm_up_model)
            // writes "Actual usage: %s GiB for weights, ... %s GiB for NPU graph memory. ... Current KV
            // cache memory: %s GiB." with format_gib (bytes / 2^30).
            any("graph memory", Quantity.GRAPH_MEMORY, AMOUNT_STRICT + "\\s+for (?:CUDAGraph|NPU graph) memory\\b", Kind.AMOUNT),
            // Only the first suggestion: it fits the requested utilization; the second one
            // ("to fully utilize gpu memory") is a different quantity.
            // The backtick keeps a --kv-cache-memory=N flag of an echoed command line out: that is the
            // user's setting, not vLLM's suggestion.
            first("`--kv-cache-memory=", Quantity.KV_CACHE_SUGGESTED, "`--kv-cache-memory=" + NUMBER_STRICT, Kind.RAW_BYTES),
            // v1/worker/gpu_model_runner.py capture_model: "Graph capturing finished in %.0f
            // secs, took %.2f GiB" (cuda_graph_size / GiB_bytes); vllm-ascend prints the same.
            any("graph capturing finished", Quantity.GRAPH_MEMORY, IF + "Graph capturing finished in\\s+\\S+\\s+secs?,\\s*took\\s+" + AMOUNT, Kind.AMOUNT),
            // v1/worker/gpu_worker.py compile_or_warm_up_model: "CUDA graph pool memory: %s GiB (actual),
            // %s GiB (estimated), difference: ..." (round(b / GiB_bytes, 2)); vllm-ascend's 310P worker
            // prints "ACL graph pool memory: ..." alike. The actual, first, is read; "Estimated CUDA graph
            // memory: X GiB total" (gpu_model_runner.py profile_cudagraph_memory) is an estimate, not read.
            any("graph", Quantity.GRAPH_MEMORY, IF + "(?:graph pool memory|NPU graph memory)(?:\\s+takes|\\s+is|\\s*:)?\\s+" + AMOUNT_STRICT, Kind.AMOUNT),
            // vllm_ascend/worker/worker_v1.py determine_available_memory: logger.info(
            // f"Available memory: {usable_memory_size}, total memory: {total_npu_memory}"),
            // both plain byte counts from NPUPlatform.mem_get_info().
            any("available memory:", Quantity.AVAILABLE_MEMORY, "\\bAvailable memory:\\s*" + NUMBER, Kind.RAW_BYTES),
            any("total memory:", Quantity.TOTAL_MEMORY, "\\bAvailable memory:[^,]*,\\s*total memory:\\s*" + NUMBER, Kind.RAW_BYTES),
            // v1/core/kv_cache_utils.py: "GPU KV cache size: {num_tokens:,} tokens" and
            // "Maximum concurrency for {max_model_len:,} tokens per request: {x:.2f}x".
            any("gpu kv cache size:", Quantity.KV_CACHE_TOKENS, IF + "GPU KV cache size:\\s*" + NUMBER + "\\s*tokens", Kind.VALUE),
            any("maximum concurrency for", Quantity.MAX_CONCURRENCY, IF + "Maximum concurrency for\\s+(?<t>[\\d,]+)\\s+tokens per request:\\s*" + NUMBER, Kind.VALUE),
            // executor/executor_base.py initialize_cache: "# %s blocks: %d, # CPU blocks: %d"
            // with the device name (GPU, CUDA, npu, ...); llm_engine.py before it.
            any(" blocks:", Quantity.GPU_BLOCKS, IF + "#\\s*(?:GPU|CUDA|NPU|XPU|HPU|TPU|ROCm|device) blocks:\\s*" + NUMBER, Kind.VALUE),
            any("cpu blocks:", Quantity.CPU_BLOCKS, IF + "#\\s*CPU blocks:\\s*" + NUMBER, Kind.VALUE),
            // not "Overriding num_gpu_blocks=%d with num_gpu_blocks_override=%d": the first number
            // is the profiled count that was replaced; the "# GPU blocks" line shows the one used.
            // v1/metrics/loggers.py (v0.9+) logs the engine's cache config after start:
            // "[Engine 000: ]vllm cache_config_info with initialization after num_gpu_blocks is: %d"
            // (INFO in some builds, DEBUG in others; "%d Engines:" when aggregated).
            any("num_gpu_blocks", Quantity.GPU_BLOCKS, "(?<!Overriding )\\bnum_gpu_blocks(?:\\s+is)?\\s*[=:]\\s*" + NUMBER_STRICT, Kind.VALUE),
            any("num_cpu_blocks", Quantity.CPU_BLOCKS, "\\bnum_cpu_blocks\\s*[=:]\\s*" + NUMBER_STRICT, Kind.VALUE),
            // vllm-ascend Mooncake connector (mooncake_engine.py register_kv_caches):
            // "num_blocks: %d, block_shape: ..." the device KV blocks it registers.
            any("num_blocks:", Quantity.GPU_BLOCKS, "\\bnum_blocks:\\s*" + NUMBER_STRICT, Kind.VALUE),
            // v1/core/kv_cache_utils.py check_enough_kv_cache_memory (v0.8+): "To serve at least one
            // request with the model's max seq len (%d), (%.2f GiB KV cache is needed, which is larger
            // than the available KV cache memory (%.2f GiB). Based on the available memory, the
            // estimated maximum model length is %d. Try increasing `gpu_memory_utilization` or
            // decreasing `max_model_len` ..." (early builds: "models's", the "(" before the amount).
            any("kv cache is needed", Quantity.KV_CACHE_NEEDED, IF + AMOUNT_STRICT + "\\s+KV cache is needed", Kind.AMOUNT),
            any("available kv cache memory (", Quantity.KV_CACHE_AVAILABLE, IF + "larger than the available KV cache memory\\s*\\(\\s*" + AMOUNT, Kind.AMOUNT),
            any("estimated maximum model length", Quantity.ESTIMATED_MAX_MODEL_LEN, IF + "estimated maximum model length is\\s+" + NUMBER, Kind.VALUE),
            // the same check, and V0's (engine/llm_engine.py, worker/worker.py raise_if_cache_size_invalid):
            // "The model's max seq len (%d) is larger than the maximum number of tokens that can be
            // stored in KV cache (%d)."
            any("max seq len", Quantity.MAX_MODEL_LEN, IF + "max seq len\\s*\\(\\s*" + NUMBER_STRICT + "\\s*\\)", Kind.VALUE),
            any("maximum number of tokens that can be stored", Quantity.KV_CACHE_TOKENS,
                    IF + "maximum number of tokens that can be stored in KV cache\\s*\\(\\s*" + NUMBER_STRICT, Kind.VALUE),
            // MemoryProfilingResult.__repr__ (v0.8+ V1, vllm-ascend v0.16+): "Total non KV cache
            // memory: XGiB" = weights + torch peak increase + non-torch increase, the part of the
            // budget that is not KV; a sum, so its own quantity.
            any("total non kv cache memory", Quantity.NON_KV_CACHE_MEMORY, IF + "Total non KV cache memory:\\s*" + AMOUNT, Kind.AMOUNT),
            // worker/worker.py (v0.6.3-v0.6.4, PR 9352) "Memory profiling results: total_gpu_memory=
            // %.2fGiB initial_memory_usage=%.2fGiB peak_torch_memory=%.2fGiB memory_usage_post_profile=
            // %.2fGib non_torch_memory=..."; PR 10511's table keeps the first row: device memory in use
            // (every process) when profiling began, and after it.
            any("initial_memory_usage", Quantity.INITIAL_MEMORY_USAGE, "\\binitial_memory_usage(?:\\s*[=:]\\s*|\\s+)" + AMOUNT, Kind.AMOUNT),
            any("memory_usage_post_profile", Quantity.MEMORY_USAGE_POST_PROFILE, "\\bmemory_usage_post_profile(?:\\s*[=:]\\s*|\\s+)" + AMOUNT, Kind.AMOUNT),
            // The check after the profile run that free memory fell: v1/worker/gpu_worker.py
            // determine_available_memory (v0.8+) and vllm-ascend worker.py, assert
            // init_snapshot.free_memory > free_gpu_memory, "Error in memory profiling. Initial free memory
            // {format_gib(...)} GiB, current free memory {format_gib(...)} GiB. This happens when other
            // processes sharing the same container release GPU memory while vLLM is profiling ..."; V0
            // worker/worker.py determine_num_available_blocks and vllm-ascend v0.7 worker.py print the raw
            // byte counts ("Initial free memory 58247258112, current free memory 58247516160"). The
            // initial figure is the free memory at start (init_snapshot / init_gpu_memory, taken before
            // the weights load).
            any("error in memory profiling", Quantity.FREE_MEMORY_AT_START,
                    IF + "Error in memory profiling\\.?\\s*Initial free memory\\s+" + AMOUNT, Kind.AMOUNT_OR_BYTES),
            any("error in memory profiling", Quantity.FREE_MEMORY_AFTER_PROFILE,
                    IF + "Error in memory profiling\\..*?\\bcurrent free memory\\s+" + AMOUNT, Kind.AMOUNT_OR_BYTES),
            // --kv-cache-memory set: v1/worker/gpu_worker.py (v0.11+) "Reserved %.2f GiB for KV cache as
            // specified by kv_cache_memory_bytes config and skipped memory profiling"; vllm-ascend
            // worker.py (v0.19+) "Initial free memory %.2f GiB, reserved %.2f GiB for KV Cache as specified
            // by kv_cache_memory_bytes". The KV cache is then that size, outside any utilization budget.
            any("as specified by kv_cache_memory_bytes", Quantity.KV_CACHE_AVAILABLE,
                    IF + "reserved\\s+" + AMOUNT_STRICT + "\\s+for KV cache as specified by kv_cache_memory_bytes", Kind.AMOUNT),
            any("as specified by kv_cache_memory_bytes", Quantity.FREE_MEMORY_AT_START,
                    IF + "Initial free memory\\s+" + AMOUNT_STRICT + ",\\s*reserved", Kind.AMOUNT),
            // PyTorch caching allocator OOM (c10/cuda/CUDACachingAllocator.cpp, torch_npu's
            // NPUCachingAllocator copies it): "Tried to allocate X (GPU n; X total capacity;
            // X already allocated; X free; X reserved in total by PyTorch)"; since torch 2.1:
            // "Tried to allocate X. GPU n has a total capacity of X of which X is free. ...
            // Of the allocated memory X is allocated by PyTorch, and X is reserved by PyTorch
            // but unallocated." Sizes come from format_size: GiB/MiB/KiB/bytes.
            scoped("tried to allocate", Quantity.OOM_TRIED, IF + "Tried to allocate\\s+" + AMOUNT, Kind.AMOUNT, Scope.OOM),
            scoped("total capacity", Quantity.OOM_TOTAL_CAPACITY, IF + AMOUNT_STRICT + "\\s+total capacity", Kind.AMOUNT, Scope.OOM),
            // torch 2.1 printed "total capacty of" (typo fixed in 2.2)
            scoped("total capac", Quantity.OOM_TOTAL_CAPACITY, IF + "total capac(?:i)?ty of\\s+" + AMOUNT_STRICT, Kind.AMOUNT, Scope.OOM),
            scoped("already allocated", Quantity.OOM_ALLOCATED, IF + AMOUNT_STRICT + "\\s+already allocated", Kind.AMOUNT, Scope.OOM),
            scoped("allocated by pytorch", Quantity.OOM_ALLOCATED, IF + "Of the allocated memory\\s+" + AMOUNT_STRICT + "\\s+is allocated by PyTorch", Kind.AMOUNT, Scope.OOM),
            scoped(" free", Quantity.OOM_FREE, IF + AMOUNT_STRICT + "\\s+free\\b", Kind.AMOUNT, Scope.OOM),
            scoped("is free", Quantity.OOM_FREE, IF + "of which\\s+" + AMOUNT_STRICT + "\\s+is free", Kind.AMOUNT, Scope.OOM),
            scoped("reserved in total by pytorch", Quantity.OOM_RESERVED, IF + AMOUNT_STRICT + "\\s+reserved in total by PyTorch", Kind.AMOUNT, Scope.OOM),
            // torch 2.1+: reserved = allocated + private pools + "reserved by PyTorch but unallocated";
            // "Including non-PyTorch memory, this process has X memory in use" is the process's whole
            // footprint on the device (its context, NCCL/HCCL buffers and the allocator's segments)
            scoped("reserved by pytorch but unallocated", Quantity.OOM_RESERVED_UNALLOCATED,
                    IF + AMOUNT_STRICT + "\\s+is reserved by PyTorch but unallocated", Kind.AMOUNT, Scope.OOM),
            scoped("allocated in private pools", Quantity.OOM_PRIVATE_POOLS,
                    IF + "with\\s+" + AMOUNT_STRICT + "\\s+allocated in private pools", Kind.AMOUNT, Scope.OOM),
            scoped("this process has", Quantity.OOM_THIS_PROCESS,
                    IF + "this process has\\s+" + AMOUNT_STRICT + "\\s+memory in use", Kind.AMOUNT, Scope.OOM));

    /**
     * "Free memory on device (a/b GiB)": a is free at startup, b is the device total as the engine
     * saw it. Forms: vllm v1/worker/gpu_worker.py (v0.9+) and vllm-ascend worker.py without a device
     * name; vllm/v1/worker/utils.py request_memory with {@code init_snapshot.device_}
     * ({@code "on device cuda:0 (3.25/23.43 GiB)"}); newer vllm-ascend branches "on NPU device";
     * a colon instead of the parenthesis as summaries and pastes write it.
     */
    private static final Pattern FREE_ON_DEVICE = Pattern.compile(
            "(?i)Free memory on (?:NPU |GPU )?device(?:\\s+(?<dev>[A-Za-z]+:\\d+|[^\\s(:]+))?\\s*[(:]\\s*(?<a>[\\d.,]+)\\s*/\\s*(?<b>[\\d.,]+)\\s*(?<u>GiB|GB|MiB|MB)\\b");
    /**
     * executor/executor_base.py initialize_cache (v0.7+): "# %s blocks: %d, # CPU blocks: %d" with
     * current_platform.device_name ("cuda" on NVIDIA, "npu" under vllm-ascend; some builds upper-case
     * it). The older "# GPU blocks" names no device type and gives none.
     */
    private static final Pattern BLOCKS_DEVICE = Pattern.compile("(?i)#\\s*(cuda|npu|xpu|hpu|tpu|rocm) blocks:\\s*\\d");
    /** torch's device string in the free-memory check: cuda:N is the process-local GPU N, npu:N the NPU. */
    private static final Pattern TORCH_DEVICE = Pattern.compile("(?i)(cuda|npu):(\\d+)");

    private static final Pattern TABLE_HEADER = Pattern.compile("(?i)Memory profiling results:\\s*$");
    private static final Pattern PAIRS_HEADER = Pattern.compile("(?i)Memory profiling results:\\s*\\S");
    /** Row names of the PR 10511 table; any other message ends the table. */
    private static final Pattern TABLE_ROW = Pattern.compile(
            "(?i)^(?:duration|total_gpu_memory|gpu_memory_utilization|the current vLLM instance can use"
                    + "|model weights take|non_torch_memory|PyTorch activation peak memory"
                    + "|available_kv_cache_memory|initial_memory_usage|peak_torch_memory"
                    + "|memory_usage_post_profile|torch peak memory increase)\\b");
    private static final Pattern OOM = Pattern.compile("(?i)Tried to allocate");
    /** Cheap pre-filter for ServerStarts on lines without a worker label. */
    private static final Pattern STARTISH = Pattern.compile("(?i)API server version|args:|LLM engine|^\\s*\\$|vllm\\s+serve|-m\\s+vllm");

    private VllmLogParser() {
    }

    /** Reads a whole log given as text. */
    public static Result parse(String text) {
        try {
            return parse(new BufferedReader(new StringReader(text)));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringReader does not fail
        }
    }

    /**
     * Reads a log line by line, in memory that does not grow with the log: serving logs of a
     * long run reach gigabytes. Lines are numbered as {@link TextLines} does: LF ends a line,
     * a CR right before it belongs to the ending, a lone CR stays inside the line.
     *
     * @throws IOException when the reader fails
     */
    public static Result parse(BufferedReader in) throws IOException {
        List<Observation> observations = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        PerFile state = new PerFile();
        StringBuilder buf = new StringBuilder(256);
        // a line holding NUL bytes (a killed writer, a crashed file system) is skipped whole: a
        // zeroed block can cut a figure in two, so no part of the line is trusted
        NulLines nulLines = new NulLines();
        long nuls = 0;
        int lineNo = 0;
        int c;
        boolean pending = false;
        boolean debug = false;
        while (true) {
            c = in.read();
            if (c != '\n' && c >= 0) {
                if (c == 0) {
                    nuls++;
                } else if (nuls == 0) {
                    buf.append((char) c);
                }
                pending = true;
                continue;
            }
            if (c < 0 && !pending) {
                break;
            }
            int len = buf.length();
            if (len > 0 && buf.charAt(len - 1) == '\r') {
                buf.setLength(len - 1);
            }
            lineNo++;
            if (nuls > 0) {
                nulLines.add(lineNo, nuls);
                nuls = 0;
            } else {
                String line = buf.toString();
                debug = debug || isDebugRecord(line);
                readLine(line, lineNo, state, observations, warnings);
            }
            buf.setLength(0);
            pending = false;
            if (c < 0) {
                break;
            }
        }
        nulLines.warning().ifPresent(w -> warnings.add(0, w));
        return new Result(observations, warnings, debug);
    }

    /** A DEBUG record of vLLM's logger, {@code DEBUG 04-12 08:21:19 [gpu_worker.py:261] ...}, prefix or colour before it. */
    private static boolean isDebugRecord(String line) {
        if (!line.contains("DEBUG")) {
            return false;
        }
        Matcher h = LogSegment.HEADER.matcher(LogSegment.stripColour(line));
        while (h.find()) {
            if (h.group().startsWith("DEBUG")) {
                return true;
            }
        }
        return false;
    }

    /** What one file's reading carries from line to line. */
    private static final class PerFile {
        /** open profiling tables, by process label ("" for lines without a prefix) */
        final Set<String> openTables = new HashSet<>();
        final ServerStarts starts = new ServerStarts();
        final ServeCommand command = new ServeCommand();
        final MemoryFailures failures = new MemoryFailures();
        final NcclInfoLines nccl = new NcclInfoLines();
        final WrappedRefusal wrapped = new WrappedRefusal();
        final PythonEngineCall python = new PythonEngineCall();
    }

    private static void readLine(String line, int lineNo, PerFile st, List<Observation> observations, List<String> warnings) {
        Optional<LogSegment> wrapped = Optional.empty();
        if (st.wrapped.open()) {
            List<LogSegment> segs = LogSegment.of(line);
            wrapped = st.wrapped.next(segs.isEmpty() ? null : segs.get(0), lineNo);
        }
        readRecord(line, lineNo, st, observations, warnings);
        // after the closing line's own figures, so that the whole adds only what no line gave
        wrapped.ifPresent(whole -> rereadWrapped(whole, st, observations));
    }

    private static void readRecord(String line, int lineNo, PerFile st, List<Observation> observations, List<String> warnings) {
        if (NcclInfoLines.mayHold(line)) {
            st.nccl.read(line, lineNo, observations, warnings);
            return;
        }
        // traceback frames carry no figure, but name the phase of an error that follows
        st.failures.frame(line, lineNo);
        String lower = line.toLowerCase(Locale.ROOT);
        boolean startish = line.contains("pid=") || STARTISH.matcher(line).find();
        boolean candidate = mayHoldFigure(lower);
        boolean deploy = st.command.continues() || EngineArgs.mayHold(lower) || lower.contains("vllm")
                || lower.contains("visible_devices") || lower.contains("_alloc_conf") || st.python.continues() || PythonEngineCall.mayStart(line)
                || TorchrunCommand.mayHold(lower);
        boolean failure = MemoryFailures.mayHold(lower);
        if (!startish && !candidate && !deploy && !failure && st.openTables.isEmpty()) {
            return;
        }
        for (LogSegment seg : LogSegment.of(line)) {
            int before = observations.size();
            if (startish) {
                st.starts.read(seg, lineNo, observations);
            }
            if (deploy) {
                if (!seg.tabular()) {
                    // a shell line (command, export) has no logger header; a log record never is one
                    // a continued line is part of the start even when the figure on it (--gpu-memory-utilization)
                    // is read by the figure rules below, not by the command reader (vllm #7768)
                    boolean continued = st.command.continues();
                    List<Observation> shell = st.command.read(seg.message(), lineNo);
                    boolean marked = observations.subList(before, observations.size()).stream()
                            .anyMatch(o -> o.quantity() == Quantity.SERVER_START);
                    if ((!shell.isEmpty() || continued || st.command.startedHere()) && !marked) {
                        // each line of a start command (continued lines, an export before it) is part of
                        // that start: marked so that its figures are not taken for a start that already ran
                        observations.add(context(Observation.value(Quantity.SERVER_START, 1, lineNo, "start command"), seg));
                    }
                    shell.forEach(o -> observations.add(context(o, seg)));
                    // vLLM's Python API, LLM(model=..., max_model_len=...), is the start of its instance too
                    boolean call = st.python.continues();
                    List<Observation> py = st.python.read(seg.message(), lineNo);
                    if ((!py.isEmpty() || call || st.python.continues()) && shell.isEmpty() && !continued && !marked) {
                        observations.add(context(Observation.value(Quantity.SERVER_START, 1, lineNo, "start call"), seg));
                    }
                    py.forEach(o -> observations.add(context(o, seg)));
                }
                // the allocator's variable on a shell line or collect_env's environment section; not a start of its own
                if (!seg.tabular()) {
                    AllocatorConf.read(seg.message(), lineNo).forEach(o -> observations.add(context(o, seg)));
                }
                EngineArgs.read(seg, lineNo, observations);
            }
            String key = seg.process() == null ? "" : seg.process();
            if (candidate || failure) {
                String msg = seg.message();
                boolean inTable = st.openTables.contains(key) && TABLE_ROW.matcher(msg).find();
                if (!inTable) {
                    st.openTables.remove(key);
                }
                if (TABLE_HEADER.matcher(msg).find()) {
                    st.openTables.add(key);
                }
                boolean pairs = PAIRS_HEADER.matcher(msg).find();
                boolean oom = OOM.matcher(msg).find();
                int figures = observations.size();
                readSegment(seg, lineNo, inTable, pairs, oom, observations, warnings);
                st.starts.printed(seg, observations.subList(figures, observations.size()));
                st.failures.read(seg, lineNo, oom, observations);
                st.wrapped.start(seg, lineNo, figures);
            } else {
                st.openTables.remove(key);
            }
            st.failures.note(observations.subList(before, observations.size()));
        }
    }

    /**
     * A refusal wrapped over several pasted lines, read again whole: only the quantities its
     * lines did not give on their own are added, each on the line that holds its text.
     */
    private static void rereadWrapped(LogSegment whole, PerFile st, List<Observation> observations) {
        WrappedRefusal w = st.wrapped;
        Set<Quantity> seen = new HashSet<>();
        observations.subList(w.firstObservation(), observations.size()).forEach(o -> seen.add(o.quantity()));
        List<Observation> again = new ArrayList<>();
        readSegment(whole, w.lineOf(null), false, false, false, again, new ArrayList<>());
        if (!seen.contains(Quantity.MEMORY_FAILURE)) {
            // a refusal whose phrase was cut by the wrap ("KV cach" / "e is needed") is a refusal still
            st.failures.read(whole, w.lineOf(null), false, again);
        }
        for (Observation o : again) {
            if (seen.add(o.quantity())) {
                observations.add(context(new Observation(o.quantity(), o.bytes(), o.value(), w.lineOf(o.text()), o.text(),
                        o.context()), whole));
            }
        }
    }

    /**
     * The rules' anchors plus the two headers: a line holding none of them cannot hold a figure.
     * Serving logs are mostly request and throughput lines, and skipping them before any regex
     * keeps long logs fast.
     */
    private static final List<String> KEYWORDS = java.util.stream.Stream.concat(
                    RULES.stream().map(PhraseRule::anchor),
                    java.util.stream.Stream.of("memory profiling results", "free memory on device"))
            .distinct().toList();

    private static boolean mayHoldFigure(String lower) {
        for (String k : KEYWORDS) {
            if (lower.contains(k)) {
                return true;
            }
        }
        return false;
    }

    private static void readSegment(LogSegment seg, int lineNo, boolean inTable, boolean pairs,
                                    boolean oom, List<Observation> out, List<String> warnings) {
        String msg = seg.message();
        // one value position gives one observation per quantity, even when two phrasings match
        Map<Quantity, Set<Integer>> taken = new EnumMap<>(Quantity.class);
        String lower = msg.toLowerCase(Locale.ROOT);
        int before = out.size();
        for (PhraseRule rule : RULES) {
            if (!applies(rule.scope(), inTable, pairs, oom) || !lower.contains(rule.anchor())) {
                continue;
            }
            Matcher m = rule.pattern().matcher(msg);
            while (m.find()) {
                int at = m.start("v");
                if (!taken.computeIfAbsent(rule.quantity(), q -> new HashSet<>()).add(at)) {
                    continue;
                }
                observe(rule, m, seg, lineNo, out, warnings);
                if (rule.firstOnly()) {
                    break;
                }
            }
        }
        if (oom) {
            OomProcesses.read(seg, lineNo, out);
            OomDevice.tag(msg, out, before);
        }
        Matcher b = BLOCKS_DEVICE.matcher(msg);
        if (b.find()) {
            out.add(EngineArgs.deviceType(b.group(1), lineNo, seg));
        }
        Matcher f = FREE_ON_DEVICE.matcher(msg);
        if (f.find()) {
            String unit = f.group("u");
            int from = out.size();
            amount(Quantity.FREE_MEMORY_AT_START, f.group("a") + " " + unit, true, seg, lineNo, out, warnings);
            amount(Quantity.TOTAL_MEMORY, f.group("b") + " " + unit, true, seg, lineNo, out, warnings);
            Matcher d = TORCH_DEVICE.matcher(f.group("dev") == null ? "" : f.group("dev"));
            if (d.matches()) {
                String device = (d.group(1).equalsIgnoreCase("cuda") ? "gpu:" : "npu:") + d.group(2);
                for (int i = from; i < out.size(); i++) {
                    Observation o = out.get(i);
                    out.set(i, o.in(o.context().toBuilder().device(device).build()));
                }
            }
        }
    }

    private static boolean applies(Scope scope, boolean inTable, boolean pairs, boolean oom) {
        return switch (scope) {
            case ANY -> true;
            case PROFILING_TABLE -> inTable;
            case PROFILING_PAIRS -> pairs;
            case OOM -> oom;
        };
    }

    private static void observe(PhraseRule rule, Matcher m, LogSegment seg, int lineNo,
                                List<Observation> out, List<String> warnings) {
        String raw = m.group("v");
        if (!meantAsNumber(raw)) {
            // e.g. a traceback's source line "available_kv_cache_memory = (memory_for_..."
            return;
        }
        switch (rule.kind()) {
            case AMOUNT -> amount(rule.quantity(), raw, true, seg, lineNo, out, warnings);
            case AMOUNT_OR_BYTES -> amount(rule.quantity(), raw, false, seg, lineNo, out, warnings);
            case RAW_BYTES -> {
                Optional<Amounts.Reading> r = Amounts.read(raw);
                if (r.isEmpty()) {
                    warnings.add(unreadable(lineNo, rule.quantity(), raw));
                } else if (r.get().unit() != null) {
                    // a build that prints a unit after all: the unit rules apply
                    amount(rule.quantity(), raw, true, seg, lineNo, out, warnings);
                } else if (Amounts.rawBytes(r.get()).isEmpty()) {
                    warnings.add(unreadable(lineNo, rule.quantity(), raw));
                } else {
                    out.add(context(Observation.bytes(rule.quantity(), Amounts.rawBytes(r.get()).get(), lineNo,
                            r.get().text()), seg));
                }
            }
            case VALUE -> {
                Optional<Amounts.Reading> r = Amounts.read(raw);
                if (r.isEmpty() || r.get().unit() != null) {
                    warnings.add(unreadable(lineNo, rule.quantity(), raw));
                    return;
                }
                Observation o = context(Observation.value(rule.quantity(), r.get().number().doubleValue(),
                        lineNo, r.get().text()), seg);
                if (rule.pattern().pattern().contains("(?<t>")) {
                    String tokens = m.group("t").replace(",", "");
                    if (tokens.length() > 9) {
                        warnings.add("line " + lineNo + ": tokens per request " + Quote.of(m.group("t"))
                                + " is out of range (more than 9 digits); " + rule.quantity()
                                + " kept without tokens_per_request");
                    } else {
                        o = o.in(o.context().toBuilder().tokensPerRequest(Integer.parseInt(tokens)).build());
                    }
                }
                out.add(o);
            }
        }
    }

    /** Identifiers after a phrase are code, not a figure; digits, nothing, or nan are a figure. */
    private static boolean meantAsNumber(String raw) {
        return raw.isBlank() || NUMBERISH.matcher(raw).find();
    }

    private static final Pattern NUMBERISH = Pattern.compile("\\d|^(?i:[-+]?nan|[-+]?inf(?:inity)?|n/a|\\?+)[.,;)]*$");

    /**
     * @param unitRequired true where the emitting code always writes a unit: a bare number
     *     there is a cut or wrapped line ("non_torch_memory=6" + ".07GiB" on the next line),
     *     not a byte count
     */
    private static void amount(Quantity quantity, String raw, boolean unitRequired, LogSegment seg, int lineNo,
                               List<Observation> out, List<String> warnings) {
        Optional<Long> bytes = Amounts.read(raw)
                .filter(r -> !unitRequired || r.unit() != null)
                .flatMap(Amounts::bytes);
        if (bytes.isEmpty()) {
            warnings.add(unreadable(lineNo, quantity, raw));
            return;
        }
        out.add(context(Observation.bytes(quantity, bytes.get(), lineNo, Amounts.trimText(raw)), seg));
    }

    static Observation context(Observation o, LogSegment seg) {
        return seg.process() == null ? o
                : o.in(o.context().toBuilder().process(seg.process()).pid(seg.pid()).dpRank(seg.dpRank()).build());
    }

    private static String unreadable(int lineNo, Quantity quantity, String raw) {
        String found = raw == null || raw.isBlank() ? "nothing" : Quote.of(raw.strip());
        return "line " + lineNo + ": the " + quantity + " phrase is followed by " + found
                + (raw != null && Amounts.tooManyDigits(raw)
                        ? ", a number out of range (more digits than a 64-bit count holds)"
                        : ", not a number with a unit this reader knows")
                + "; " + quantity + " left out (unknown, not 0)";
    }
}

package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each memory refusal and error form vLLM, vllm-ascend and torch/torch_npu print, on lines copied
 * from public issue threads and reports (cited per test, with the engine version that prints
 * them). Bytes: number x 2^30 (GiB) or x 2^20 (MiB), rounded half-up.
 */
class VllmLogFailureTest {

    private static List<Observation> obs(String text) {
        return VllmLogParser.parse(text).observations();
    }

    private static List<Observation> of(String text, String quantity) {
        return obs(text).stream().filter(o -> o.quantity().contractName().equals(quantity)).toList();
    }

    private static long gib(double n) {
        return Math.round(n * 1024 * 1024 * 1024);
    }

    private static boolean detected(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return new VllmLogReader().detect(new FileHead("x", b, b.length)).isPresent();
    }

    /**
     * vllm/v1/worker/utils.py request_memory (v0.11+) names the device; a bare ValueError line as
     * pasted in a public report ("the second axis's LLM init saw 24 GB free out of 192 GB").
     */
    @Test
    void startupCheckWithDeviceNameAsABareErrorLine() {
        String line = "ValueError: Free memory on device cuda:0 (24.05/191.69 GiB) on startup is less than desired GPU memory "
                + "utilization (0.85, 162.93 GiB)";
        assertThat(obs(line)).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value, x -> x.context().device())
                .containsExactly(
                        tuple("memory_utilization", null, 0.85, null),
                        tuple("instance_budget", gib(162.93), null, null),
                        tuple("free_memory_at_start", gib(24.05), null, "gpu:0"),
                        tuple("total_memory", gib(191.69), null, "gpu:0"),
                        tuple("memory_failure", null, 1.0, null));
        assertThat(of(line, "memory_failure")).extracting(x -> x.context().component()).containsExactly("startup_check");
        assertThat(detected(line)).isTrue();
    }

    /**
     * vllm v1/worker/gpu_worker.py init_device (v0.9-v0.10) and vllm-ascend worker.py _init_device
     * (v0.16-v0.18), no device name: the line of the ascend-8621 case (vllm-ascend, 910B2).
     */
    @Test
    void startupCheckWithoutDeviceName() {
        String line = "(EngineCore_DP0 pid=2198) ValueError: Free memory on device (27.18/60.96 GiB) on startup is less than desired "
                + "GPU memory utilization (0.9, 54.86 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.";
        assertThat(of(line, "free_memory_at_start")).extracting(Observation::bytes, x -> x.context().device(), x -> x.context().pid())
                .containsExactly(tuple(gib(27.18), null, 2198L));
        assertThat(of(line, "memory_failure")).extracting(x -> x.context().component(), x -> x.context().process())
                .containsExactly(tuple("startup_check", "EngineCore_DP0 pid=2198"));
    }

    /**
     * The NPU wording of vllm-ascend commit 020e3540f9 (worker.py _init_device: "Free memory on NPU
     * device ... is less than desired NPU memory utilization ..."), figures as in the 8621 case.
     */
    @Test
    void startupCheckInNpuWording() {
        String line = "ValueError: Free memory on NPU device (27.18/60.96 GiB) on startup is less than desired NPU memory utilization "
                + "(0.9, 54.86 GiB). Decrease --gpu-memory-utilization or reduce NPU memory used by other processes.";
        assertThat(obs(line)).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value)
                .containsExactlyInAnyOrder(
                        tuple("memory_utilization", null, 0.9),
                        tuple("instance_budget", gib(54.86), null),
                        tuple("free_memory_at_start", gib(27.18), null),
                        tuple("total_memory", gib(60.96), null),
                        tuple("memory_failure", null, 1.0));
    }

    /**
     * Not failures: the v0.11+ summary after start ("Free memory on device (a/b GiB) on startup. Desired
     * GPU memory utilization is (u, r GiB). ...") and kvcached's warning that skips the check (public
     * kvcached log, "Ignoring GPU free-memory check: Free memory on device (6.53/7.62 GiB) ..."); the
     * colon form of a pasted summary ("Free memory on device: 78.83/79.25 GiB") gives its figures.
     */
    @Test
    void summariesAndSkippedChecksAreNoFailure() {
        String skipped = "[kvcached][WARNING][2025-11-26 17:29:24][patches.py:749] Ignoring GPU free-memory check: Free memory on device "
                + "(6.53/7.62 GiB) on startup is less than desired GPU memory utilization (0.9, 6.86 GiB).";
        assertThat(of(skipped, "memory_failure")).isEmpty();
        assertThat(of(skipped, "total_memory")).extracting(Observation::bytes).containsExactly(gib(7.62));
        String colon = "Free memory on device: 78.83/79.25 GiB";
        assertThat(obs(colon)).extracting(x -> x.quantity().contractName(), Observation::bytes)
                .containsExactly(tuple("free_memory_at_start", gib(78.83)), tuple("total_memory", gib(79.25)));
    }

    /** vllm v1/core/kv_cache_utils.py, and V0 raise_if_cache_size_invalid: no KV block fits the budget. */
    @Test
    void noAvailableMemoryForTheCacheBlocks() {
        // a public vLLM report (V1, ngram speculative decoding): "Available KV cache memory: -0.3 GiB" then this line
        String text = "Available KV cache memory: -0.3 GiB\nValueError: No available memory for the cache blocks\n";
        assertThat(of(text, "memory_failure")).extracting(Observation::line, x -> x.context().component(), Observation::text)
                .containsExactly(tuple(2, "kv_cache_sizing", "No available memory for the cache blocks"));
        assertThat(detected("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`"
                + " when initializing the engine.")).isTrue();
    }

    /**
     * vllm v1/core/kv_cache_utils.py check_enough_kv_cache_memory, early V1 wording ("models's", a
     * parenthesis before the amount): vllm issue #43755, "(EngineCore pid=401) ERROR [core.py:1140]".
     */
    @Test
    void kvCacheNeededEarlyWording() {
        String line = "(EngineCore pid=401) ERROR [core.py:1140] ValueError: To serve at least one request with the models's max seq len "
                + "(1000000), (223.68 GiB KV cache is needed, which is larger than the available KV cache memory (15.57 GiB).";
        assertThat(obs(line)).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value, x -> x.context().component())
                .containsExactlyInAnyOrder(
                        tuple("kv_cache_needed", gib(223.68), null, null),
                        tuple("kv_cache_available", gib(15.57), null, null),
                        tuple("max_model_len", null, 1_000_000.0, null),
                        tuple("memory_failure", null, 1.0, "kv_cache_sizing"));
    }

    /** The later wording with the estimated maximum length (V1, a public report with 5.29 GiB of weights). */
    @Test
    void kvCacheNeededWithEstimatedMaximumLength() {
        String text = "ValueError: To serve at least one request with the model's max seq len (8192),\n"
                + "0.44 GiB KV cache is needed, which is larger than the available KV cache memory (0.2 GiB).\n"
                + "Based on the available memory, the estimated maximum model length is 3696.\n";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::line, Observation::bytes, Observation::value)
                .containsExactly(
                        tuple("max_model_len", 1, null, 8192.0),
                        tuple("kv_cache_needed", 2, gib(0.44), null),
                        tuple("kv_cache_available", 2, gib(0.2), null),
                        tuple("memory_failure", 2, null, 1.0),
                        tuple("estimated_max_model_len", 3, null, 3696.0));
    }

    /** V0 (vllm/worker/worker.py raise_if_cache_size_invalid, v0.4-v0.8): max length vs KV tokens. */
    @Test
    void v0MaxSeqLenLargerThanKvTokens() {
        String line = "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV "
                + "cache (13296). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
        assertThat(obs(line)).extracting(x -> x.quantity().contractName(), Observation::value, x -> x.context().component())
                .containsExactly(
                        tuple("max_model_len", 32768.0, null),
                        tuple("kv_cache_tokens", 13296.0, null),
                        tuple("memory_failure", 1.0, "kv_cache_sizing"));
    }

    /**
     * torch_npu NPUWorkspaceAllocator (csrc/core/npu/NPUWorkspaceAllocator.cpp: "NPU out of memory.
     * NPUWorkspaceAllocator tried to allocate " format_size "(NPU " device "; " total " total capacity; "
     * free " free)"): a bare C++ log line with a [rankN]:[E...] prefix, copied from a public vllm-ascend
     * v0.12.0rc1 report; the same glued to a tqdm bar (issue 11, fault 6).
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  40%|####      | 8/20 [00:10<00:15,  1.3it/s]"})
    void npuWorkspaceAllocatorBareLine(String bar) {
        String line = bar + "[rank0]:[E107 02:38:42.269390205 compiler_depend.ts:444] NPU out of memory. NPUWorkspaceAllocator tried to "
                + "allocate 180.00 MiB(NPU 0; 60.96 GiB total capacity; 89.51 MiB free). If you want to reduce memory usage, take a try "
                + "to set the environment variable TASK_QUEUE_ENABLE=1.";
        assertThat(obs(line)).extracting(x -> x.quantity().contractName(), Observation::bytes, x -> x.context().device())
                .containsExactly(
                        tuple("oom_tried", 180L * 1024 * 1024, "npu:0"),
                        tuple("oom_total_capacity", gib(60.96), "npu:0"),
                        tuple("oom_free", Math.round(89.51 * 1024 * 1024), "npu:0"),
                        tuple("memory_failure", null, null));
        assertThat(of(line, "memory_failure").get(0).text()).startsWith("NPU out of memory. NPUWorkspaceAllocator tried");
        assertThat(detected(line)).isTrue();
    }

    /** The phase tests' lines: an OOM, a start marker, vLLM's weights figure and its KV budget (V1 wording). */
    private static final String OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total"
            + " capacity of 79.15 GiB of which 1.06 GiB is free.\n";
    private static final String START = "INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.10.1\n";
    private static final String WEIGHTS = "INFO 01-01 00:00:01 [gpu_model_runner.py:1] Model loading took 14.99 GiB and 5.1 seconds\n";
    private static final String KV = "INFO 01-01 00:00:02 [gpu_worker.py:1] Available KV cache memory: 50.00 GiB\n";

    @Test
    void oomPhaseFollowsTheStartUp() {
        // vllm-ascend #2667 (corpus) lines 28 and 31: what the model runner and the loader print while loading
        String loading = "(EngineCore_0 pid=1440043) INFO 09-02 03:32:12 [model_runner_v1.py:2282] Starting to load model"
                + " LLM-Research/Meta-Llama-3.1-8B-Instruct...\n";
        String shards = "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]\n";
        assertThat(phase(START + loading + OOM)).isEqualTo("model_loading");
        assertThat(phase(START + shards + OOM)).isEqualTo("model_loading");
        assertThat(phase(START + WEIGHTS + OOM)).isEqualTo("memory_profiling");
        assertThat(phase(START + WEIGHTS + KV + OOM)).isEqualTo("after_kv_cache_sizing");
        // a second start begins again
        assertThat(phase(START + WEIGHTS + KV + START + loading + OOM)).isEqualTo("model_loading");
    }

    /**
     * An excerpt cut before the phase lines (a START marker, then the error) does not show the
     * phase: unknown, not "while loading the weights" (fresh-user finding); nor does a second
     * START that printed nothing yet.
     */
    @Test
    void oomAfterAStartMarkerAloneHasNoPhase() {
        assertThat(phase(START + OOM)).isEqualTo("unknown");
        assertThat(phase(OOM)).isEqualTo("unknown");
        assertThat(phase(START + WEIGHTS + KV + START + OOM)).isEqualTo("unknown");
    }

    /**
     * torch 2.1+ OOM text as a vLLM V1 worker printed it (public vLLM issue thread, TP 2 on 93 GiB
     * GPUs): every figure with c10's units, the process list with its pid, and the phase from the
     * traceback frames before it (profile_run inside determine_available_memory).
     */
    @Test
    void torch21OomReadsTheCacheAndTheProcessesAndTheTracebackPhase() {
        String log = "(VllmWorker rank=1 pid=254) ERROR 05-01 10:00:00 [multiproc_executor.py:470]   File \"/x/vllm/v1/worker/gpu_worker.py\", line 209, in determine_available_memory\n"
                + "(VllmWorker rank=1 pid=254) ERROR 05-01 10:00:00 [multiproc_executor.py:470]   File \"/x/vllm/v1/worker/gpu_model_runner.py\", line 2101, in profile_run\n"
                + "(VllmWorker rank=1 pid=254) ERROR 05-01 10:00:00 [multiproc_executor.py:470] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB."
                + " GPU 1 has a total capacity of 93.02 GiB of which 1.18 GiB is free. Process 2752205 has 91.82 GiB memory in use."
                + " Of the allocated memory 90.63 GiB is allocated by PyTorch, and 120.54 MiB is reserved by PyTorch but unallocated.\n";
        assertThat(of(log, "oom_reserved_unallocated")).extracting(Observation::bytes)
                .containsExactly(Math.round(120.54 * 1024 * 1024));
        assertThat(of(log, "oom_process_in_use")).singleElement().satisfies(o -> {
            assertThat(o.bytes()).isEqualTo(Math.round(91.82 * 1024 * 1024 * 1024));
            assertThat(o.context().pid()).isEqualTo(2752205L);
            assertThat(o.context().device()).isEqualTo("gpu:1");
        });
        assertThat(phase(log)).isEqualTo("memory_profiling");
    }

    /** torch 2.1's typo "total capacty" and the failing process's own line; private pools. */
    @Test
    void torch21TypoThisProcessAndPrivatePools() {
        String log = "OutOfMemoryError: CUDA out of memory. Tried to allocate 5.96 GiB. GPU 0 has a total capacty of 23.69 GiB of which 5.25 GiB is free."
                + " Process 2006998 has 256.00 MiB memory in use. Including non-PyTorch memory, this process has 18.17 GiB memory in use."
                + " Of the allocated memory 17.88 GiB is allocated by PyTorch, with 1.50 GiB allocated in private pools (e.g., CUDA Graphs),"
                + " and 0 bytes is reserved by PyTorch but unallocated.\n";
        assertThat(of(log, "oom_total_capacity")).extracting(Observation::bytes).containsExactly(Math.round(23.69 * (1L << 30)));
        assertThat(of(log, "oom_this_process")).extracting(Observation::bytes).containsExactly(Math.round(18.17 * (1L << 30)));
        assertThat(of(log, "oom_process_in_use")).extracting(Observation::bytes).containsExactly(256L << 20);
        assertThat(of(log, "oom_private_pools")).extracting(Observation::bytes).containsExactly(Math.round(1.5 * (1L << 30)));
        assertThat(of(log, "oom_reserved_unallocated")).extracting(Observation::bytes).containsExactly(0L);
    }

    /** A traceback names the phase over what the START printed; an old one, far above, does not. */
    @Test
    void tracebackPhaseWinsWhenNearAndGraphCaptureOutranksExecuteModel() {
        String capture = "  File \"/x/gpu_model_runner.py\", line 1, in capture_model\n  File \"/x/gpu_model_runner.py\", line 2, in execute_model\n";
        String serving = "  File \"/x/gpu_worker.py\", line 1, in execute_model\n";
        assertThat(phase(START + KV + capture + OOM)).isEqualTo("graph_capture");
        assertThat(phase(START + KV + serving + OOM)).isEqualTo("serving");
        String far = "INFO 01-01 00:00:03 [loggers.py:1] Avg prompt throughput: 1.0 tokens/s\n".repeat(TracebackPhase.REACH + 1);
        assertThat(phase(START + KV + capture + far + OOM)).isEqualTo("after_kv_cache_sizing");
    }

    private static String phase(String text) {
        List<Observation> f = of(text, "memory_failure");
        assertThat(f).hasSize(1);
        return f.get(0).context().component();
    }

    /**
     * vllm v1/metrics/loggers.py log_engine_initialized: "Engine %03d: vllm cache_config_info with
     * initialization after num_gpu_blocks is: %d" (INFO, DEBUG in later builds; the aggregated logger
     * writes "%d Engines:"); lines from public vLLM logs (v0.10).
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "\u001b[1;36m(APIServer pid=15)\u001b[0;0m INFO 08-27 21:03:30 [loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 9853",
        "(APIServer  pid=288189) DEBUG 08-06 10:17:29 [v1/metrics/loggers.py:285] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 9853",
        "INFO 08-06 10:17:29 [loggers.py:160] 2 Engines: vllm cache_config_info with initialization after num_gpu_blocks is: 9853",
        "vllm cache_config_info with initialization after num_gpu_blocks is: 9853"})
    void numGpuBlocksIsLine(String line) {
        assertThat(of(line, "gpu_blocks")).extracting(Observation::value).containsExactly(9853.0);
        assertThat(detected(line)).isTrue();
    }

    @Test
    void overridingNumGpuBlocksStaysIgnored() {
        assertThat(of("INFO 01-01 00:00:00 [block_pool.py:1] Overriding num_gpu_blocks=9853 with num_gpu_blocks_override=512",
                "gpu_blocks")).isEmpty();
    }

    /**
     * vLLM V1's profiling check (v1/worker/gpu_worker.py determine_available_memory, "Initial free memory
     * {format_gib} GiB, current free memory {format_gib} GiB"), as quoted in vllm PR #33358 (XPU, both 30.3):
     * both free readings and the failure, in the engine core's process; the traceback's source line above it is none.
     */
    @Test
    void profilingCheckV1InGib() {
        String text = "(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946]     assert self.init_snapshot.free_memory > "
                + "free_gpu_memory, (\n"
                + "(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946] AssertionError: Error in memory profiling. Initial free "
                + "memory 30.3 GiB, current free memory 30.3 GiB. This happens when other processes sharing the same container release "
                + "GPU memory while vLLM is profiling during initialization. To fix this, ensure consistent GPU memory allocation or "
                + "isolate vLLM in its own container.\n";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::line, Observation::bytes, Observation::value,
                        x -> x.context().component(), x -> x.context().pid())
                .containsExactly(
                        tuple("free_memory_at_start", 2, gib(30.3), null, null, 418L),
                        tuple("free_memory_after_profile", 2, gib(30.3), null, null, 418L),
                        tuple("memory_failure", 2, null, 1.0, "profiling_check", 418L));
        assertThat(of(text, "memory_failure")).extracting(Observation::text).containsExactly("Error in memory profiling");
    }

    /**
     * V0's form prints raw byte counts (vllm-ascend v0.7.1 worker.py, as vLLM's V0 worker/worker.py): vllm-ascend
     * issue #109 on a 910B, free memory 58247258112 B before and 58247516160 B after (258048 B more).
     */
    @Test
    void profilingCheckV0InBytes() {
        String line = "[rank0]: AssertionError: Error in memory profiling. Initial free memory 58247258112, current free memory "
                + "58247516160. This happens when the NPU memory was not properly cleaned up before initializing the vLLM instance.";
        assertThat(obs(line)).extracting(x -> x.quantity().contractName(), Observation::bytes, x -> x.context().component())
                .containsExactly(
                        tuple("free_memory_at_start", 58_247_258_112L, null),
                        tuple("free_memory_after_profile", 58_247_516_160L, null),
                        tuple("memory_failure", null, "profiling_check"));
        assertThat(detected(line)).isTrue();
    }

    /**
     * The V1 line wrapped after its first figure, as vllm issue #56830 quotes it (H100 NVL, vLLM 0.29.0): the
     * second figure is read from the next line, once.
     */
    @Test
    void profilingCheckWrappedOverLines() {
        String text = "AssertionError: Error in memory profiling. Initial free memory 82.94 GiB,\n"
                + "current free memory 90.17 GiB. This happens when other processes sharing the\n"
                + "same container release GPU memory while vLLM is profiling during initialization.\n";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::line, Observation::bytes, Observation::text)
                .containsExactlyInAnyOrder(
                        tuple("free_memory_at_start", 1, gib(82.94), "82.94 GiB"),
                        tuple("memory_failure", 1, null, "Error in memory profiling"),
                        tuple("free_memory_after_profile", 2, gib(90.17), "90.17 GiB"));
    }
}

package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every phrasing in which vLLM and vllm-ascend print the graph-capture pool, read as the
 * contract's {@code graph_memory}. Each test quotes the source line that prints it; the log lines
 * are written in that format by hand (values chosen, then worked out as number x 2^30: vLLM's
 * {@code GiB_bytes}, {@code 1 << 30} and {@code format_gib} all divide by 2^30).
 */
class VllmLogGraphMemoryTest {

    private static VllmLogParser.Result parse(String text) {
        return VllmLogParser.parse(text);
    }

    private static List<Observation> graph(String text) {
        return parse(text).observations().stream().filter(o -> o.quantity() == Quantity.GRAPH_MEMORY).toList();
    }

    @Test
    void vllmAscendActualUsageForNpuGraphMemory() {
        // vllm_ascend/worker/worker.py NPUWorker.compile_or_warm_up_model, logger.info(msg) with
        // f"... Actual usage: {format_gib(model_memory_usage)} GiB for weights, {format_gib(...)} GiB
        // for peak activation, {format_gib(...)} GiB for non-torch memory, {format_gib(npugraph_memory_bytes)}
        // GiB for NPU graph memory. Replace gpu_memory_utilization with `--kv-cache-memory={...}` ({...} GiB)
        // to fit into requested memory, or `--kv-cache-memory={...}` ({...} GiB) to fully utilize NPU free
        // memory. Current KV cache memory: {...} GiB."
        String line = "(Worker_DP2_TP0_EP4 pid=473166) INFO 07-08 11:54:00 [worker.py:852] Free memory on device (60.89/61.27 GiB) on startup. "
                + "Desired GPU memory utilization is (0.9, 55.14 GiB). Actual usage: 27.17 GiB for weights, 7.27 GiB for peak activation, "
                + "3.08 GiB for non-torch memory, 1.97 GiB for NPU graph memory. Replace gpu_memory_utilization with "
                + "`--kv-cache-memory=18920000000` (17.62 GiB) to fit into requested memory, or `--kv-cache-memory=25100000000` "
                + "(23.38 GiB) to fully utilize NPU free memory. Current KV cache memory: 17.63 GiB.";
        VllmLogParser.Result r = parse(line);
        assertThat(r.warnings()).isEmpty();
        // 60.89 x 2^30 = 64,424,509,440 + 0.89 x 2^30 (955,630,223.36) = 65,380,139,663.36;
        // 61.27 -> 65,498,251,264 + 289,910,292.48 = 65,788,161,556.48; 55.14 -> 59,206,124,175.36;
        // 27.17 -> 29,173,565,358.08; 7.27 -> 7,516,192,768 + 289,910,292.48 = 7,806,103,060.48; 3.08 -> 3,307,124,817.92;
        // 1.97 -> 2 x 2^30 - 0.03 x 2^30 = 2,147,483,648 - 32,212,254.72 = 2,115,271,393.28
        assertThat(r.observations()).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value)
                .containsExactlyInAnyOrder(
                        tuple("free_memory_at_start", 65_380_139_663L, null),
                        tuple("total_memory", 65_788_161_556L, null),
                        tuple("memory_utilization", null, 0.9),
                        tuple("instance_budget", 59_206_124_175L, null),
                        tuple("weights", 29_173_565_358L, null),
                        tuple("activation_peak", 7_806_103_060L, null),
                        tuple("non_torch", 3_307_124_818L, null),
                        tuple("graph_memory", 2_115_271_393L, null),
                        tuple("kv_cache_suggested", 18_920_000_000L, null));
        assertThat(r.observations()).allSatisfy(o -> assertThat(o.context().process()).isEqualTo("Worker_DP2_TP0_EP4 pid=473166"));
    }

    @Test
    void vllmAscendEagerModeGraphMemoryIsAWrittenZero() {
        // same line with enforce_eager: npugraph_memory_bytes stays 0 and format_gib prints "0.0";
        // that is vLLM's own figure (no graph pool), not a missing one
        String line = "INFO 07-08 11:54:00 [worker.py:852] Actual usage: 39.51 GiB for weights, 1.52 GiB for peak activation, "
                + "3.15 GiB for non-torch memory, 0.0 GiB for NPU graph memory. Current KV cache memory: 13.73 GiB.";
        assertThat(graph(line)).extracting(Observation::bytes, Observation::text).containsExactly(tuple(0L, "0.0 GiB"));
    }

    @Test
    void vllmCudaGraphMemoryInTheFreeMemorySummary() {
        // vllm/v1/worker/gpu_worker.py compile_or_warm_up_model (v0.11+): "... Actual usage is %.2f GiB
        // for weight, %.2f GiB for peak activation, %.2f GiB for non-torch memory, and %.2f GiB for
        // CUDAGraph memory. ..." (later builds: "... for consumed memory (weights + non-torch) ...")
        String line = "(EngineCore pid=22228) INFO 08-06 20:15:17 [gpu_worker.py:857] Actual usage is 58.99 GiB for weight, "
                + "3.9 GiB for peak activation, 0.25 GiB for non-torch memory, and 0.7 GiB for CUDAGraph memory.";
        // 0.7 x 2^30 = 751,619,276.8
        assertThat(graph(line)).extracting(Observation::bytes, Observation::text).containsExactly(tuple(751_619_277L, "0.7 GiB"));
    }

    @Test
    void graphCapturingFinishedOfVllmAndVllmAscend() {
        // vllm/v1/worker/gpu_model_runner.py capture_model and vllm_ascend/worker/model_runner_v1.py
        // capture_model (also its torchair runner) print the same line:
        // logger.info("Graph capturing finished in %.0f secs, took %.2f GiB", elapsed_time,
        //             cuda_graph_size / (1 << 30))   [vllm-ascend: npu_graph_size / (1 << 30)]
        String text = "(Worker_TP0 pid=301) INFO 03-19 07:01:24 [gpu_model_runner.py:5757] Graph capturing finished in 3 secs, took 0.07 GiB\n"
                + "(EngineCore_DP0 pid=158158) INFO 09-22 23:59:40 [model_runner_v1.py:2640] Graph capturing finished in 24 secs, took 1.97 GiB\n";
        // 0.07 x 2^30 = 75,161,927.68; 1.97 -> 2,115,271,393.28
        assertThat(graph(text)).extracting(Observation::line, Observation::bytes)
                .containsExactly(tuple(1, 75_161_928L), tuple(2, 2_115_271_393L));
    }

    @Test
    void graphCapturingOfOldV0HasNoAmount() {
        // vllm/worker/model_runner.py (V0, before 2024-06): logger.info("Graph capturing finished in
        // %.0f secs.", elapsed_time): no memory figure, so nothing to read and nothing to warn about
        VllmLogParser.Result r = parse("INFO 02-29 19:22:10 model_runner.py:756] Graph capturing finished in 5 secs.");
        assertThat(r.observations()).isEmpty();
        assertThat(r.warnings()).isEmpty();
    }

    @Test
    void cudaGraphPoolMemoryActualNotEstimated() {
        // vllm/v1/worker/gpu_worker.py compile_or_warm_up_model: logger.info("CUDA graph pool memory:
        // %s GiB (actual), %s GiB (estimated), difference: %s GiB (%.1f%%).", GiB(cuda_graph_memory_bytes),
        // GiB(self.cudagraph_memory_estimate), ...) with GiB = round(b / GiB_bytes, 2), so "0.4" not "0.40"
        String line = "(EngineCore pid=219) INFO 05-14 10:43:22 [gpu_worker.py:599] CUDA graph pool memory: 0.4 GiB (actual), "
                + "0.26 GiB (estimated), difference: 0.14 GiB (35.3%).";
        // 0.4 x 2^30 = 429,496,729.6
        assertThat(graph(line)).extracting(Observation::bytes, Observation::text).containsExactly(tuple(429_496_730L, "0.4 GiB"));
    }

    @Test
    void aclGraphPoolMemoryOfVllmAscend() {
        // vllm-ascend NPUWorker310.compile_or_warm_up_model (vllm_ascend/_310p), after its ACL graph
        // memory estimate: logger.info("ACL graph pool memory: %s GiB (actual), %s GiB (estimated),
        // difference: %s GiB (%.1f%%).", GiB(npugraph_memory_bytes), GiB(self.npugraph_memory_estimate), ...)
        String line = "(EngineCore pid=970) INFO 05-12 11:35:10 [worker_310p.py:171] ACL graph pool memory: 0.52 GiB (actual), "
                + "0.61 GiB (estimated), difference: 0.09 GiB (17.3%).";
        // 0.52 x 2^30 = 558,345,748.48
        assertThat(graph(line)).extracting(Observation::bytes).containsExactly(558_345_748L);
    }

    @Test
    void estimatedGraphMemoryIsNotTheGraphPool() {
        // vllm/v1/worker/gpu_model_runner.py profile_cudagraph_memory: "Estimated CUDA graph memory:
        // %.2f GiB total" is the estimate taken before capture; the pool is what capture took
        String line = "(EngineCore pid=187) INFO 05-01 19:38:13 [gpu_model_runner.py:6042] Estimated CUDA graph memory: 0.45 GiB total";
        assertThat(parse(line).observations()).isEmpty();
    }

    @Test
    void graphProfilingNoticeGivesOnlyTheCurrentUtilization() {
        // vllm/v1/worker/gpu_worker.py determine_available_memory (v0.21+): "CUDA graph memory profiling
        // is enabled (default since v0.21.0). The current --gpu-memory-utilization=%.4f is equivalent to
        // --gpu-memory-utilization=%.4f without CUDA graph memory profiling. To maintain the same
        // effective KV cache size as before, increase --gpu-memory-utilization to %.4f. ..."
        // Only the first is the setting in use; the other two are what-ifs.
        String line = "(EngineCore pid=492078) INFO 08-23 09:39:41 [gpu_worker.py:578] CUDA graph memory profiling is enabled "
                + "(default since v0.21.0). The current --gpu-memory-utilization=0.9200 is equivalent to "
                + "--gpu-memory-utilization=0.9038 without CUDA graph memory profiling. To maintain the same effective KV "
                + "cache size as before, increase --gpu-memory-utilization to 0.9362. To disable, set "
                + "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.";
        assertThat(parse(line).observations()).extracting(x -> x.quantity().contractName(), Observation::value)
                .containsExactly(tuple("memory_utilization", 0.92));
    }
}

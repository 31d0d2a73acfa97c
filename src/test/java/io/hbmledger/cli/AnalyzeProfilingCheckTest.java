package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that failed in vLLM's memory profiling check ("Error in memory profiling. Initial free
 * memory X, current free memory Y"), as users paste it: the finding says the free memory did not
 * fall while vLLM profiled, by how much it rose, and what to change. Lines from vllm PR #33358
 * (V1, 30.3 GiB both) and vllm issue #56830 (V1, wrapped: 82.94 then 90.17 GiB). Bytes worked by
 * hand: 82.94 x 2^30 = 89056146882.56 -> 89056146883 B, 90.17 x 2^30 = 96819300270.08 ->
 * 96819300270 B, rise 7763153387 B = 7.23 GiB; 30.3 x 2^30 = 32534377267.2 -> 32534377267 B.
 */
class AnalyzeProfilingCheckTest {

    @TempDir
    Path tmp;

    private JsonNode analyze(String name, String text) throws Exception {
        Path log = tmp.resolve(name);
        Files.writeString(log, text);
        return AnalyzeFindingsTest.json(CliRun.of("analyze", log.toString(), "--no-write", "--format", "json"));
    }

    private static JsonNode figure(JsonNode finding, String name) {
        return SharedCasesAnalyzeTest.figure(finding, name);
    }

    @Test
    void freeMemoryThatDidNotFallIsTheAnswer() throws Exception {
        JsonNode report = analyze("pr33358.log", "(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946]     assert "
                + "self.init_snapshot.free_memory > free_gpu_memory, (\n"
                + "(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946] AssertionError: Error in memory profiling. Initial"
                + " free memory 30.3 GiB, current free memory 30.3 GiB. This happens when other processes sharing the same"
                + " container release GPU memory while vLLM is profiling during initialization. To fix this, ensure consistent"
                + " GPU memory allocation or isolate vLLM in its own container.\n");
        assertThat(report.get("status").asText()).isEqualTo("failed");
        assertThat(report.get("findings")).hasSize(1);
        JsonNode f = report.get("findings").get(0);
        assertThat(f.get("kind").asText()).isEqualTo("profiling_disturbed");
        assertThat(f.get("severity").asText()).isEqualTo("error");
        assertThat(f.get("text").asText()).contains("pr33358.log:2", "did not fall (30.30 GiB at start, 30.30 GiB after",
                "does not count vLLM's own allocations");
        assertThat(figure(f, "free_at_start").get("bytes").asLong()).isEqualTo(32_534_377_267L);
        assertThat(figure(f, "free_at_start").get("confidence").asText()).isEqualTo("reported");
        assertThat(figure(f, "free_memory_rise").get("bytes").asLong()).isZero();
        assertThat(f.get("advice").toString()).contains("--kv-cache-memory=BYTES");
        assertThat(report.get("incomplete_reasons").toString()).contains("stopped it in phase profiling_check");
    }

    @Test
    void aRiseInFreeMemoryIsWhatOthersReleasedAtLeast() throws Exception {
        JsonNode f = analyze("i56830.log", "AssertionError: Error in memory profiling. Initial free memory 82.94 GiB,\n"
                + "current free memory 90.17 GiB. This happens when other processes sharing the\n"
                + "same container release GPU memory while vLLM is profiling during initialization.\n").get("findings").get(0);
        assertThat(f.get("kind").asText()).isEqualTo("profiling_disturbed");
        assertThat(figure(f, "free_after_profile").get("bytes").asLong()).isEqualTo(96_819_300_270L);
        assertThat(figure(f, "free_memory_rise").get("bytes").asLong()).isEqualTo(96_819_300_270L - 89_056_146_883L);
        assertThat(f.get("text").asText()).contains("i56830.log:2", "rose from 82.94 GiB to 90.17 GiB (+7.23 GiB)",
                "released at least 7.23 GiB meanwhile.");
    }

    @Test
    void anNpuStartNamesTheNpu() throws Exception {
        // vllm-ascend's check prints byte counts and says "NPU memory" (its e2e test_external_launcher
        // failure, quoted in a contributor's notes); the engine config above it says device_config=npu.
        // 47541829632 - 39909924864 = 7631904768 B = 7.11 GiB
        JsonNode f = analyze("ascend.log", "INFO 02-17 08:21:52 llm_engine.py:232] Initializing a V0 LLM engine (v0.7.1)"
                + " with config: model='/models/Qwen3-0.6B', dtype=torch.bfloat16, max_seq_len=32768,"
                + " tensor_parallel_size=1, device_config=npu\n"
                + "AssertionError: Error in memory profiling. Initial free memory 39909924864, current free memory"
                + " 47541829632. This happens when the NPU memory was not properly cleaned up before initializing the vLLM"
                + " instance.\n").get("findings").get(0);
        assertThat(f.get("kind").asText()).isEqualTo("profiling_disturbed");
        assertThat(figure(f, "free_memory_rise").get("bytes").asLong()).isEqualTo(7_631_904_768L);
        assertThat(f.get("text").asText()).contains("free memory on the NPU rose from 37.17 GiB to 44.28 GiB (+7.11 GiB)");
        assertThat(f.get("advice").get(0).asText()).contains("or give vLLM an NPU or container of its own");
    }
}

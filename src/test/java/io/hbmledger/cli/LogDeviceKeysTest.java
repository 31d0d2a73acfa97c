package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run with only a vLLM log names its devices as the accelerator's own tools do once the log
 * says which accelerator it ran on (the device type vLLM prints), and {@code device:N} only when
 * nothing says so.
 */
class LogDeviceKeysTest {

    private static JsonNode device(String... args) throws Exception {
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of(args));
        assertThat(report.get("devices")).hasSize(1);
        return report.get("devices").get(0);
    }

    /** vllm-ascend #2667, line 20: the engine config's {@code device_config=npu}. */
    @Test
    void ascendLogNamesTheDeviceAsMsprofAndTorchNpuDo() throws Exception {
        String log = Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log").toString();
        JsonNode d = device("analyze", log, "--no-write", "--format", "json");
        assertThat(d.get("device").asText()).isEqualTo("npu:0");
        assertThat(d.get("device_id").asInt()).isZero();
        // no chip part: the log says nothing of chips (an A3 NPU has two)
        assertThat(CliRun.of("analyze", log, "--no-write").out())
                .contains("no npu-smi sample of npu:0 at ready").doesNotContain("device:0").doesNotContain("chip:");
    }

    /** The key follows the logical id the user names, not the rank. */
    @Test
    void namedDeviceKeepsItsLogicalId() throws Exception {
        String log = Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log").toString();
        JsonNode d = device("analyze", log, "--devices", "5", "--no-write", "--format", "json");
        assertThat(d.get("device").asText()).isEqualTo("npu:5");
        assertThat(d.get("device_id").asInt()).isEqualTo(5);
    }

    /** vllm #12126, line 3: {@code # CUDA blocks: 6001}. */
    @Test
    void cudaLogNamesTheDeviceAsNvidiaSmiDoes() throws Exception {
        String log = Corpus.file("vllm-log/vllm-pr12126_llama3.2-11B-vision_cuda_blocks.log").toString();
        assertThat(device("analyze", log, "--no-write", "--format", "json").get("device").asText()).isEqualTo("gpu:0");
    }

    /**
     * A vLLM 0.8.4 start as pasted in an issue, its first line "Automatically detected platform
     * cuda." and no other line that names the device type, with a hand-written weights line.
     */
    @Test
    void detectedPlatformNamesTheDevice(@TempDir Path tmp) throws Exception {
        Path log = tmp.resolve("serve.log");
        Files.writeString(log, """
                INFO 04-17 15:26:31 [__init__.py:239] Automatically detected platform cuda.
                INFO 04-17 15:26:33 [api_server.py:1034] vLLM API server version 0.8.4
                INFO 04-17 15:27:02 [gpu_model_runner.py:1329] Model loading took 7.1557 GiB and 3.71 seconds
                """);
        assertThat(device("analyze", log.toString(), "--no-write", "--format", "json").get("device").asText()).isEqualTo("gpu:0");
    }

    /** vllm #17122: weights, torch.compile and KV tokens, no line that names the device type. */
    @Test
    void logWithoutADeviceTypeKeepsTheNeutralKey() throws Exception {
        String log = Corpus.file("vllm-log/vllm-pr17122_v1_llama3.1-8B_L40S_no_memory_summary.log").toString();
        assertThat(device("analyze", log, "--no-write", "--format", "json").get("device").asText()).isEqualTo("device:0");
    }
}

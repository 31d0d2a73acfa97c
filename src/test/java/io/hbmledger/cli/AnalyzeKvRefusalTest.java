package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start refused because the KV cache cannot hold one request of max_model_len, as users paste
 * it: only the refusal, in tokens (V0) or in GiB with vLLM's own estimate (V1). The lines are
 * from public issue threads (QwenLM/Qwen3#295, V0; a V1 EngineCore refusal); the expected
 * figures are the ones the lines print, and the ratio 32768 / 7344 = 4.46 is worked by hand.
 */
class AnalyzeKvRefusalTest {

    @TempDir
    Path tmp;

    private JsonNode analyze(String name, String text) throws Exception {
        Path log = tmp.resolve(name);
        Files.writeString(log, text);
        CliRun r = CliRun.of("analyze", log.toString(), "--no-write", "--format", "json");
        return AnalyzeFindingsTest.json(r);
    }

    private static JsonNode only(JsonNode report, String kind) {
        JsonNode found = null;
        for (JsonNode f : report.get("findings")) {
            if (f.get("kind").asText().equals(kind)) {
                assertThat(found).as("one " + kind).isNull();
                found = f;
            }
        }
        assertThat(found).as(kind + " in " + report.get("findings")).isNotNull();
        return found;
    }

    @Test
    void v0RefusalInTokensAloneIsAnswered() throws Exception {
        JsonNode f = only(analyze("qwen.log", "python -m vllm.entrypoints.openai.api_server --model /models/Qwen1.5-7B-Chat\n"
                + "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in"
                + " KV cache (7344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n"),
                "kv_small");
        assertThat(f.get("text").asText()).contains("32,768 tokens", "7,344 tokens", "22%");
        assertThat(f.get("advice").toString()).contains("--max-model-len 7344 or less", "4.46x");
    }

    @Test
    void v1RefusalGivesVllmsOwnEstimate() throws Exception {
        JsonNode f = only(analyze("v1.log", "(EngineCore pid=316) ValueError: To serve at least one request with the model's max seq len"
                + " (100000), (4.26 GiB KV cache is needed, which is larger than the available KV cache memory (4.25 GiB). Based on"
                + " the available memory, the estimated maximum model length is 99840. Try increasing `gpu_memory_utilization` or"
                + " decreasing `max_model_len` when initializing the engine.\n"), "kv_small");
        assertThat(f.get("text").asText()).contains("100000 tokens", "4.26 GiB", "4.25 GiB", "0.01 GiB short");
        assertThat(f.get("advice").get(0).asText()).startsWith("Set --max-model-len 99840 or less");
    }

    /** V1's "No available memory for the cache blocks" after the weights line, no profiling figures. */
    @Test
    void aRefusalWithoutTheBudgetFiguresIsStillAnswered() throws Exception {
        JsonNode f = only(analyze("nokv.log", "INFO 05-10 12:05:00 [api_server.py:1043] vLLM API server version 0.10.1\n"
                + "INFO 05-10 12:05:00 [api_server.py:1044] args: Namespace(model='Qwen/Qwen3-8B', gpu_memory_utilization=0.1)\n"
                + "(EngineCore_0 pid=2400) INFO 05-10 12:05:30 [gpu_model_runner.py:1] Model loading took 15.27 GiB and 5.1 seconds\n"
                + "(EngineCore_0 pid=2400) ERROR 05-10 12:05:40 [core.py:700] ValueError: No available memory for the cache blocks."
                + " Try increasing `gpu_memory_utilization` when initializing the engine.\n"), "kv_negative");
        assertThat(f.get("text").asText()).contains("nokv.log:4", "gpu_memory_utilization 0.1", "weights 15.27 GiB",
                "shortfall is unknown");
        assertThat(f.get("advice").toString()).contains("Raise gpu_memory_utilization");
    }
}

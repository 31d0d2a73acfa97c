package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code hbm-ledger plan}: KV bytes per token on the corpus configs, the bundled example's budget, bad input. */
class PlanCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LLAMA_8B = "examples/simulated-collect/model/config.json";
    private static final String A3 = "examples/a3-llama3.1-8b-eagle3";

    private static JsonNode plan(String... args) throws Exception {
        String[] all = new String[args.length + 3];
        all[0] = "plan";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--format";
        all[args.length + 2] = "json";
        CliRun r = CliRun.of(all);
        assertThat(r.exit()).as(r.err()).isZero();
        return JSON.readTree(r.out());
    }

    private static JsonNode figure(JsonNode plan, String name) {
        for (JsonNode f : plan.get("figures")) {
            if (f.get("name").asText().equals(name)) {
                return f;
            }
        }
        for (JsonNode f : plan.get("check")) {
            if (f.get("name").asText().equals(name)) {
                return f;
            }
        }
        throw new AssertionError("no figure " + name + " in " + plan);
    }

    /**
     * KV bytes per token per device, worked out by hand from each config.json:
     * <ul>
     * <li>DeepSeek-R1 (MLA): 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B (bfloat16) = 70272 B;
     *     every TP rank holds the whole latent, so TP 16 changes nothing.</li>
     * <li>Reflection-Llama-3.1-70B: torch_dtype float32, served in 16 bits (--dtype auto): 2 x 80 layers x 8 KV heads
     *     x head_dim (8192 / 64 = 128) x 2 B = 327680 B at TP 1; at TP 8 one KV head per rank: 327680 / 8 = 40960 B.</li>
     * <li>Sakura-14B (Qwen2.5, float16): 2 x 48 x 8 x (5120 / 40 = 128) x 2 B = 196608 B; TP 4: 2 KV heads per rank = 49152 B.</li>
     * <li>WizardLM-2-8x22B (Mixtral, bfloat16): 2 x 56 x 8 x (6144 / 48 = 128) x 2 B = 229376 B; with fp8 KV 1 B each: 114688 B.</li>
     * </ul>
     */
    @ParameterizedTest
    @CsvSource({
        "deepseek-r1_DeepseekV3ForCausalLM.config.json, 1, auto, 70272",
        "deepseek-r1_DeepseekV3ForCausalLM.config.json, 16, auto, 70272",
        "reflection-llama-3.1-70b.config.json, 1, auto, 327680",
        "reflection-llama-3.1-70b.config.json, 8, auto, 40960",
        "sakura-14b-qwen2.5.config.json, 1, auto, 196608",
        "sakura-14b-qwen2.5.config.json, 4, auto, 49152",
        "wizardlm-2-8x22b_mixtral.config.json, 1, auto, 229376",
        "wizardlm-2-8x22b_mixtral.config.json, 1, fp8, 114688"})
    void kvBytesPerTokenOnTheCorpusConfigsEqualTheHandValues(String config, int tp, String kvDtype, long expected) throws Exception {
        Path c = Corpus.file("model-config/" + config);
        JsonNode p = plan(c.toString(), "--device", "910B2", "--tp", String.valueOf(tp), "--kv-cache-dtype", kvDtype,
                "--max-model-len", "4096");
        assertThat(figure(p, "kv_bytes_per_token").get("bytes").asLong()).isEqualTo(expected);
        // a block is 128 tokens on Ascend
        assertThat(figure(p, "block_bytes").get("bytes").asLong()).isEqualTo(expected * 128);
    }

    /**
     * The bundled A3 example, planned with its own settings (utilization 0.8, max_model_len 128,
     * TP 1, eager; all taken from the run) and the Llama-3.1-8B shape. The run's non-KV lump is
     * floor(0.8 x 65464696832) - 34184553369 - 16948692569 = 1238511527 B, taken unchanged, so the
     * plan's KV budget differs from the run's by exactly the weights difference: the config gives
     * 16060522496 B (14.96 GiB), vLLM loaded 16948692569 B (15.7847 GiB) because the EAGLE3 drafter
     * came too. Tolerances: KV budget within 3% (0.83 GiB of 31.84 GiB); blocks within 6%: the
     * drafter also adds one KV layer (33 instead of 32: 135168 B per token, not 131072), so the run
     * made 1975 blocks of 128 and the plan floor(35072723442 / 16777216) = 2090.
     */
    @Test
    void theA3ExampleWithItsOwnSettingsComesWithinTheStatedTolerance() throws Exception {
        JsonNode p = plan(LLAMA_8B, "--calibrate", A3);
        long planKv = figure(p, "kv_budget").get("bytes").asLong();
        long runKv = figure(p, "run_kv_budget").get("bytes").asLong();
        assertThat(runKv).isEqualTo(34184553369L);
        assertThat(planKv - runKv).isEqualTo(16948692569L - 16060522496L);
        assertThat(Math.abs(planKv - runKv) / (double) runKv).isLessThan(0.03);
        assertThat(figure(p, "blocks").get("value").asLong()).isEqualTo(2090);
        assertThat(figure(p, "run_blocks").get("value").asLong()).isEqualTo(1975);
        assertThat((2090 - 1975) / 1975.0).isLessThan(0.06);
        assertThat(p.get("settings").get("gpu_memory_utilization").asDouble()).isEqualTo(0.8);
        assertThat(p.get("settings").get("max_model_len").asInt()).isEqualTo(128);
        assertThat(p.get("settings").get("enforce_eager").asBoolean()).isTrue();
        assertThat(p.get("notes").toString()).contains("speculative drafter");
        // the lump is the run's own (inferred), unchanged: same profile tokens (2048), same TP
        JsonNode lump = p.get("lines").get(1);
        assertThat(lump.get("component").asText()).isEqualTo("activation_peak_and_non_torch");
        assertThat(lump.get("bytes").asLong()).isEqualTo(1238511527L);
        assertThat(lump.get("scaled").asText()).isEqualTo("unchanged");
        assertThat(lump.get("confidence").asText()).isEqualTo("inferred");
        // the graph pool is none under enforce_eager, outside the budget
        assertThat(p.get("lines").get(2).get("in_budget").asBoolean()).isFalse();
    }

    /**
     * Defaults (no calibration), TP 2 on a 910B2: the lump 1238511527 B at 2048 tokens scaled to
     * 8192 tokens (x 4 = 4954046108 B), plus HCCL 423690240 B for TP &gt; 1 = 5377736348 B; weights
     * 8030527488 B per device (Llama-3.1-8B shape / TP 2, vocab padded); budget floor(0.9 x
     * round(60.96 GiB)) = floor(0.9 x 65455301591) = 58909771431 B; KV budget 58909771431 -
     * 8030527488 - 5377736348 = 45501507595 B; blocks floor(45501507595 / (128 x 65536)) = 5424.
     */
    @Test
    void defaultsAreScaledByTheDocumentedRulesAndLabelledEstimated() throws Exception {
        JsonNode p = plan(LLAMA_8B, "--device", "910B2", "--tp", "2", "--max-num-batched-tokens", "8192", "--max-model-len", "8192");
        JsonNode lump = p.get("lines").get(1);
        assertThat(lump.get("bytes").asLong()).isEqualTo(5377736348L);
        assertThat(lump.get("confidence").asText()).isEqualTo("estimated");
        assertThat(lump.get("scaled").asText()).contains("2048 -> 8192", "TP 1 -> 2");
        assertThat(figure(p, "kv_budget").get("bytes").asLong()).isEqualTo(45501507595L);
        assertThat(figure(p, "blocks").get("value").asLong()).isEqualTo(5424);
        assertThat(figure(p, "kv_tokens").get("value").asLong()).isEqualTo(5424L * 128);
        // 5424 blocks / (8192 / 128 = 64 blocks per request) = 84.75
        assertThat(figure(p, "max_concurrency").get("value").asDouble()).isEqualTo(84.75);
        assertThat(figure(p, "kv_budget").get("confidence").asText()).isEqualTo("estimated");
        // the graph pool is not assumed: unknown, not 0
        JsonNode graph = p.get("lines").get(2);
        assertThat(graph.get("bytes").isNull()).isTrue();
        assertThat(graph.get("confidence").asText()).isEqualTo("unknown");
    }

    @Test
    void aSweepGivesOnePlanPerValue() throws Exception {
        JsonNode p = plan(LLAMA_8B, "--device", "910B2", "--tp", "2", "--max-num-batched-tokens", "8192", "--max-model-len", "8192",
                "--sweep", "gpu-memory-utilization=0.5,0.9");
        JsonNode rows = p.get("sweep").get("rows");
        assertThat(rows).hasSize(2);
        // 0.5: floor(0.5 x 65455301591) = 32727650795; - 13408263836 = 19319386959 B; / 8388608 = 2303 blocks
        assertThat(figure(rows.get(0).get("plan"), "blocks").get("value").asLong()).isEqualTo(2303);
        assertThat(figure(rows.get(1).get("plan"), "blocks").get("value").asLong()).isEqualTo(5424);
        CliRun text = CliRun.of("plan", LLAMA_8B, "--device", "910B2", "--sweep", "max-model-len=4096,8192");
        assertThat(text.out()).contains("sweep over max-model-len:");
    }

    @Test
    void aCoTenantThatLeavesTooLittleFreeIsRefusedAtStart() throws Exception {
        // case ascend-8621: 33.78 GiB in use, 0.9 x 60.96 GiB = 54.86 GiB asked: refused
        JsonNode p = plan(LLAMA_8B, "--device", "910B2", "--co-tenant", "33.78", "--max-model-len", "4096");
        assertThat(p.get("notes").toString()).contains("refused at start");
        // (65455301591 - round(33.78 GiB)) / 65455301591
        double largest = (65455301591L - Math.round(33.78 * (1L << 30))) / 65455301591.0;
        assertThat(figure(p, "largest_utilization_with_co_tenant").get("value").asDouble()).isEqualTo(largest);
    }

    @Test
    void badInputExitsTwoNamingTheFile(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope");
        CliRun r = CliRun.of("plan", missing.toString(), "--device", "910B2");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(missing.toString());
        assertThat(r.out()).isEmpty();
        CliRun d = CliRun.of("plan", LLAMA_8B, "--device", "910B9");
        assertThat(d.exit()).isEqualTo(2);
        assertThat(d.err()).contains("910B9", "910B2");
        CliRun noModel = CliRun.of("plan", "--calibrate", A3);
        assertThat(noModel.exit()).isEqualTo(2);
        assertThat(noModel.err()).contains(A3 + "/run.json", "names no checkpoint");
        Path notJson = Files.writeString(dir.resolve("config.json"), "{\"hidden_size\": ");
        CliRun bad = CliRun.of("plan", notJson.toString(), "--device", "910B2");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("config.json");
    }
}

package io.hbmledger.evidence.modelconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ModelConfigReaderTest {

    private static Map<String, Observation> read(String corpusFile) throws Exception {
        String text = Files.readString(Corpus.file(corpusFile));
        EvidenceFile f = ModelConfigReader.read(corpusFile, text);
        assertThat(f.format()).isEqualTo(EvidenceFormat.MODEL_CONFIG);
        return f.observations().stream().collect(Collectors.toMap(x -> x.quantity().contractName(), o -> o));
    }

    @Test
    void deepSeekR1MlaKvBytesPerToken() throws Exception {
        Map<String, Observation> o = read("model-config/deepseek-r1_DeepseekV3ForCausalLM.config.json");
        // MLA caches one latent per layer: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements,
        // x 61 num_hidden_layers (the num_nextn_predict_layers MTP layer is not the main model)
        // x 2 bytes (torch_dtype bfloat16) = 70272. The MHA formula would give 2 x 61 x 128 x 56 x 2.
        assertThat(o.get("kv_bytes_per_token").bytes()).isEqualTo(61L * (512 + 64) * 2).isEqualTo(70272L);
        assertThat(o.get("kv_bytes_per_token").line()).isEqualTo(21); // "kv_lora_rank": 512
        assertThat(o).doesNotContainKeys("num_kv_heads", "head_dim");
        assertThat(o.get("num_experts").value()).isEqualTo(256.0); // n_routed_experts, line 27
        assertThat(o.get("num_experts").line()).isEqualTo(27);
        assertThat(o.get("num_mtp_layers").value()).isEqualTo(1.0);
        assertThat(o.get("num_layers").value()).isEqualTo(61.0);
    }

    @Test
    void llamaFloat32KvBytesAndDerivedHeadDim() throws Exception {
        Map<String, Observation> o = read("model-config/reflection-llama-3.1-70b.config.json");
        // 2 x 80 layers x 8 KV heads x (8192 / 64 = 128) x 4 bytes (float32) = 655360
        assertThat(o.get("kv_bytes_per_token").bytes()).isEqualTo(655360L);
        assertThat(o.get("head_dim").value()).isEqualTo(128.0);
        assertThat(o.get("head_dim").text()).isEqualTo("128 (derived: hidden_size 8192 / num_attention_heads 64)");
        assertThat(o).doesNotContainKey("num_experts");
    }

    @Test
    void mixtralExperts() throws Exception {
        Map<String, Observation> o = read("model-config/wizardlm-2-8x22b_mixtral.config.json");
        assertThat(o.get("num_experts").value()).isEqualTo(8.0); // num_local_experts
        assertThat(o.get("kv_bytes_per_token").bytes()).isEqualTo(2L * 56 * 8 * 128 * 2);
    }

    @Test
    void nestedTextConfigAndMhaDefault() throws Exception {
        String json = """
                {"architectures": ["SomeVLForConditionalGeneration"],
                 "model_type": "some_vl",
                 "text_config": {"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 8,
                                 "vocab_size": 1000, "torch_dtype": "bfloat16"},
                 "vision_config": {"depth": 2}}
                """;
        ModelConfig c = ModelConfigParser.parse("x", json);
        assertThat(c.numLayers()).isEqualTo(4);
        assertThat(c.numKvHeads()).isEqualTo(8); // no num_key_value_heads: transformers' default, MHA
        assertThat(c.headDim()).isEqualTo(32);
        assertThat(c.hasVision()).isTrue();
        // 2 x 4 x 8 x 32 x 2
        assertThat(c.kvBytesPerToken(2)).isEqualTo(4096L);
        assertThat(c.lineOf("num_layers")).isEqualTo(3); // text_config opens on line 3
    }

    @Test
    void notJsonNamesTheLine() {
        assertThatThrownBy(() -> ModelConfigReader.read("config.json", "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": ,\n}"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageStartingWith("config.json:3: not valid JSON");
    }

    @Test
    void unknownDtypeGivesNoKvFigureAndAWarning() throws Exception {
        EvidenceFile f = ModelConfigReader.read("c.json",
                "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":4}");
        assertThat(f.observations()).extracting(x -> x.quantity().contractName()).doesNotContain("kv_bytes_per_token");
        assertThat(f.warnings()).singleElement().asString().contains("no torch_dtype");
    }

    @Test
    void kvCacheSchemeInTheConfigSizesTheKv() throws Exception {
        EvidenceFile f = ModelConfigReader.read("c.json", "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"hidden_size\":64,"
                + "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"torch_dtype\":\"bfloat16\","
                + "\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"kv_cache_scheme\":{\"num_bits\":8,\"type\":\"float\"}}}");
        // 2 x 2 layers x 2 KV heads x (64 / 4 = 16) x 1 byte = 128
        assertThat(f.observations()).filteredOn(o -> o.quantity() == Quantity.KV_BYTES_PER_TOKEN).singleElement()
                .satisfies(o -> {
                    assertThat(o.bytes()).isEqualTo(128L);
                    assertThat(o.text()).contains("kv_cache_scheme 8-bit");
                });
    }

    // ---- every quantity cites the line of the key it came from; derived values say so ----

    @Test
    void everyCorpusQuantityCitesItsKeysLine() throws Exception {
        // lines read off the corpus files with `grep -n` (a derived value cites the key it was taken from)
        Map<String, Integer> mixtral = Map.ofEntries(Map.entry("num_layers", 17), Map.entry("hidden_size", 10),
                Map.entry("num_attention_heads", 15), Map.entry("num_kv_heads", 18), Map.entry("head_dim", 10),
                Map.entry("vocab_size", 30), Map.entry("num_experts", 19), Map.entry("num_experts_per_token", 16),
                Map.entry("intermediate_size", 12), Map.entry("moe_intermediate_size", 12), Map.entry("kv_bytes_per_token", 18));
        Map<String, Integer> deepseek = Map.ofEntries(Map.entry("num_layers", 32), Map.entry("hidden_size", 18),
                Map.entry("num_attention_heads", 30), Map.entry("vocab_size", 69), Map.entry("num_experts", 27),
                Map.entry("num_shared_experts", 28), Map.entry("num_experts_per_token", 31), Map.entry("intermediate_size", 20),
                Map.entry("moe_intermediate_size", 24), Map.entry("kv_lora_rank", 21), Map.entry("qk_rope_head_dim", 38),
                Map.entry("num_mtp_layers", 34), Map.entry("kv_bytes_per_token", 21));
        Map<String, Integer> llama = Map.of("num_layers", 17, "hidden_size", 11, "num_attention_heads", 16, "num_kv_heads", 18,
                "head_dim", 11, "vocab_size", 27, "intermediate_size", 13, "kv_bytes_per_token", 18);
        Map<String, Integer> qwen = Map.of("num_layers", 17, "hidden_size", 10, "num_attention_heads", 16, "num_kv_heads", 18,
                "head_dim", 10, "vocab_size", 27, "intermediate_size", 12, "kv_bytes_per_token", 18);
        Map<String, Map<String, Integer>> files = Map.of("model-config/wizardlm-2-8x22b_mixtral.config.json", mixtral,
                "model-config/deepseek-r1_DeepseekV3ForCausalLM.config.json", deepseek,
                "model-config/reflection-llama-3.1-70b.config.json", llama, "model-config/sakura-14b-qwen2.5.config.json", qwen);
        for (var f : files.entrySet()) {
            Map<String, Observation> o = read(f.getKey());
            assertThat(o.keySet()).as(f.getKey()).isEqualTo(f.getValue().keySet());
            for (var e : f.getValue().entrySet()) {
                assertThat(o.get(e.getKey()).line()).as(f.getKey() + " " + e.getKey()).isEqualTo(e.getValue());
            }
        }
    }

    @Test
    void mixtralMoeIntermediateSizeIsDerivedFromIntermediateSizeOnLine12() throws Exception {
        Observation o = read("model-config/wizardlm-2-8x22b_mixtral.config.json").get("moe_intermediate_size");
        // line 12: "intermediate_size": 16384; Mixtral's experts are intermediate_size wide, the file has no moe key
        assertThat(o.line()).isEqualTo(12);
        assertThat(o.value()).isEqualTo(16384.0);
        assertThat(o.text()).startsWith("16384 (derived").contains("intermediate_size");
    }

    @Test
    void derivedDefaultsCiteTheirSourceKey() throws Exception {
        // Qwen2-MoE style: no shared-expert count, shared_expert_intermediate_size on line 5; no num_key_value_heads
        String json = "{\"model_type\": \"qwen2_moe\",\n"
                + " \"num_hidden_layers\": 2,\n"
                + " \"hidden_size\": 64,\n"
                + " \"num_attention_heads\": 4,\n"
                + " \"shared_expert_intermediate_size\": 128,\n"
                + " \"num_experts\": 4, \"moe_intermediate_size\": 32,\n"
                + " \"torch_dtype\": \"bfloat16\"}\n";
        Map<String, Observation> o = ModelConfigReader.read("c.json", json).observations().stream()
                .collect(Collectors.toMap(x -> x.quantity().contractName(), x -> x));
        assertThat(o.get("num_shared_experts").line()).isEqualTo(5);
        assertThat(o.get("num_shared_experts").text()).contains("derived", "shared_expert_intermediate_size");
        assertThat(o.get("num_kv_heads").line()).isEqualTo(4);
        assertThat(o.get("num_kv_heads").text()).contains("derived", "num_attention_heads");
        assertThat(o.get("moe_intermediate_size").text()).isEqualTo("32");
        assertThat(o.get("moe_intermediate_size").line()).isEqualTo(6);
    }

    @Test
    void sizeKeysThatAreNotPositiveIntegersNameTheirLine() {
        assertThatThrownBy(() -> ModelConfigReader.read("c.json", "{\"model_type\": \"llama\",\n \"num_hidden_layers\": \"2\",\n \"hidden_size\": 64}"))
                .isInstanceOf(EvidenceException.class).hasMessage("c.json:2: \"num_hidden_layers\" is \"2\"; expected an integer");
        assertThatThrownBy(() -> ModelConfigReader.read("c.json", "{\"model_type\": \"llama\",\n \"num_hidden_layers\": 2,\n"
                + " \"hidden_size\": 64, \"num_attention_heads\": 4,\n \"num_key_value_heads\": 0}"))
                .isInstanceOf(EvidenceException.class).hasMessage("c.json:4: \"num_key_value_heads\" is 0; expected a positive integer");
        assertThatThrownBy(() -> ModelConfigReader.read("c.json", "{\"model_type\": \"llama\", \"num_hidden_layers\": -2,\n \"hidden_size\": 64}"))
                .isInstanceOf(EvidenceException.class).hasMessageStartingWith("c.json:1: \"num_hidden_layers\" is -2");
    }
}

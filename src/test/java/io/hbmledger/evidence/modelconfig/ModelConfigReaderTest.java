package io.hbmledger.evidence.modelconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.Observation;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ModelConfigReaderTest {

    private static Map<String, Observation> read(String corpusFile) throws Exception {
        String text = Files.readString(Corpus.file(corpusFile));
        EvidenceFile f = ModelConfigReader.read(corpusFile, text);
        assertThat(f.format()).isEqualTo("model-config");
        return f.observations().stream().collect(Collectors.toMap(Observation::quantity, o -> o));
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
        assertThat(o.get("head_dim").text()).isEqualTo("128 (hidden_size 8192 / num_attention_heads 64)");
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
        assertThat(f.observations()).extracting(Observation::quantity).doesNotContain("kv_bytes_per_token");
        assertThat(f.warnings()).singleElement().asString().contains("no torch_dtype");
    }

    @Test
    void kvCacheSchemeInTheConfigSizesTheKv() throws Exception {
        EvidenceFile f = ModelConfigReader.read("c.json", "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"hidden_size\":64,"
                + "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"torch_dtype\":\"bfloat16\","
                + "\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"kv_cache_scheme\":{\"num_bits\":8,\"type\":\"float\"}}}");
        // 2 x 2 layers x 2 KV heads x (64 / 4 = 16) x 1 byte = 128
        assertThat(f.observations()).filteredOn(o -> o.quantity().equals("kv_bytes_per_token")).singleElement()
                .satisfies(o -> {
                    assertThat(o.bytes()).isEqualTo(128L);
                    assertThat(o.text()).contains("kv_cache_scheme 8-bit");
                });
    }
}

package io.hbmledger.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.modelconfig.ModelConfig;
import io.hbmledger.evidence.modelconfig.ModelConfigParser;
import io.hbmledger.evidence.safetensors.CheckpointManifest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Small configs in each family's spelling, sized by hand. */
class ConfigEstimatorTest {

    private static long total(List<CheckpointTensor> ts) {
        return ts.stream().mapToLong(CheckpointTensor::bytes).sum();
    }

    @Test
    void chatGlmFusedQkvWithMultiQueryGroups() throws Exception {
        ModelConfig c = ModelConfigParser.parse("glm", """
                {"model_type": "chatglm", "num_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
                 "multi_query_attention": true, "multi_query_group_num": 2, "kv_channels": 16,
                 "ffn_hidden_size": 96, "padded_vocab_size": 128, "add_qkv_bias": true, "torch_dtype": "bfloat16"}
                """);
        List<CheckpointTensor> ts = ConfigEstimator.tensors(c);
        // word_embeddings 128 x 64 x 2 = 16384; per layer: 2 norms 256, query_key_value (4 + 2 x 2) x 16 = 128 rows
        // x 64 x 2 = 16384 + bias 256, dense 8192, dense_h_to_4h 192 x 64 x 2 = 24576, dense_4h_to_h 12288: 61952;
        // final_layernorm 128, output_layer 16384. 16384 + 2 x 61952 + 128 + 16384 = 156,800
        assertThat(total(ts)).isEqualTo(156_800L);
        assertThat(ts).extracting(CheckpointTensor::name).contains("transformer.encoder.layers.1.self_attention.query_key_value.bias",
                "transformer.output_layer.weight");
        WeightsPlan p = WeightsPlanner.plan(new Checkpoint(ts, Checkpoint.Source.CONFIG, c, List.of()), ParallelLayout.tp(2),
                PlanOptions.defaults());
        // TP 2: embed and output 64 rows x 128 B = 8192 each; per layer qkv (4/2 + 2 x 1 heads) x 16 x 64 x 2 = 8192
        // + bias 128, dense 4096, h_to_4h 12288, 4h_to_h 6144, norms 256 = 31104; x 2 + final 128 = 78,720
        assertThat(p.perDeviceBytes()).isEqualTo(78_720L);
    }

    @Test
    void qwen3MoeWithDenseFirstLayerAndExplicitHeadDim() throws Exception {
        ModelConfig c = ModelConfigParser.parse("qwen3moe", """
                {"model_type": "qwen3_moe", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "head_dim": 32, "intermediate_size": 128, "moe_intermediate_size": 32,
                 "num_experts": 4, "num_experts_per_tok": 2, "decoder_sparse_step": 1, "mlp_only_layers": [0],
                 "vocab_size": 100, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}
                """);
        List<CheckpointTensor> ts = ConfigEstimator.tensors(c);
        // embed, lm_head 100 x 64 x 2 = 12800 each, final norm 128.
        // attention per layer (head_dim 32, not 64 / 4): q 128 x 64 x 2 = 16384, k, v 64 x 64 x 2 = 8192 each,
        //   o 64 x 128 x 2 = 16384, q_norm, k_norm 32 x 2 = 64 each, 2 norms 256: 49536
        // layer 0 is in mlp_only_layers: gate, up, down 128 x 64 x 2 = 16384 each: 49152
        // layer 1 MoE: router 4 x 64 x 2 = 512, 4 experts x 3 x 32 x 64 x 2 = 49152
        // 25600 + 128 + 2 x 49536 + 49152 + 512 + 49152 = 223,616
        assertThat(total(ts)).isEqualTo(223_616L);
        assertThat(ts).hasSize(35);
        assertThat(ts).extracting(CheckpointTensor::name).contains("model.layers.1.mlp.experts.3.down_proj.weight",
                "model.layers.0.mlp.gate_proj.weight", "model.layers.1.self_attn.k_norm.weight");
        // KV: 2 x 2 layers x 2 heads x 32 x 2 B = 512 per token
        assertThat(c.kvBytesPerToken(2)).isEqualTo(512L);
    }

    @Test
    void missingSizeIsNamed() {
        assertThatThrownBy(() -> Checkpoint.from(new CheckpointManifest("m", List.of(), List.of(), null,
                "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10}")))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("config.json has no intermediate_size");
    }
}

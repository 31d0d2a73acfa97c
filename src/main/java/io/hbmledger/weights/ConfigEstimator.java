package io.hbmledger.weights;

import io.hbmledger.evidence.modelconfig.ModelConfig;
import io.hbmledger.evidence.safetensors.SafetensorsDtype;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Builds the tensor list a checkpoint of a config.json would hold, with Hugging Face names and
 * shapes, when no safetensors headers are at hand. Every result is an estimate.
 *
 * <p>Shapes follow the transformers modeling files of each family: Llama / Qwen2 / Qwen3 /
 * Mistral (q/k/v/o_proj, gate/up/down_proj; Qwen2 q/k/v bias; Qwen3 q_norm/k_norm), Mixtral
 * ({@code block_sparse_moe.experts.N.w1/w2/w3}, router {@code block_sparse_moe.gate}),
 * Qwen2-MoE / Qwen3-MoE ({@code mlp.experts.N.*}, Qwen2-MoE {@code shared_expert} and
 * {@code shared_expert_gate}), DeepSeek-V2/V3 (MLA: q_a/q_b/kv_a_proj_with_mqa/kv_b/o_proj with
 * their layernorms; {@code first_k_dense_replace} dense layers; routed and shared experts;
 * V3's {@code e_score_correction_bias}; MTP layers after the main ones with enorm, hnorm,
 * eh_proj and shared_head), GLM-4.5 MoE (Llama attention, DeepSeek-style MoE) and ChatGLM
 * ({@code transformer.encoder.layers.N.self_attention.query_key_value}). FP8 block quantization
 * ({@code quant_method: fp8}, {@code weight_block_size}) stores decoder linear weights as
 * F8_E4M3 with an F32 {@code weight_scale_inv} of shape [ceil(out/b0), ceil(in/b1)].
 */
public final class ConfigEstimator {

    private final ModelConfig c;
    private final List<CheckpointTensor> out = new ArrayList<>();
    private final String wd;
    private final boolean fp8Block;
    private final int b0;
    private final int b1;

    private ConfigEstimator(ModelConfig c) {
        this.c = c;
        this.wd = weightDtype(c.torchDtype());
        ModelConfig.Quantization q = c.quantization();
        this.fp8Block = q != null && "fp8".equalsIgnoreCase(q.method()) && q.weightBlockSize().size() == 2;
        this.b0 = fp8Block ? q.weightBlockSize().get(0) : 0;
        this.b1 = fp8Block ? q.weightBlockSize().get(1) : 0;
    }

    /**
     * @return the estimated tensors, main model first, then MTP layers
     * @throws IllegalArgumentException when the config lacks a size the estimate needs (the
     *     message names the key)
     */
    public static List<CheckpointTensor> tensors(ModelConfig c) {
        require(c.numLayers(), "num_hidden_layers");
        require(c.hiddenSize(), "hidden_size");
        require(c.vocabSize(), "vocab_size");
        require(c.numAttentionHeads(), "num_attention_heads");
        ConfigEstimator e = new ConfigEstimator(c);
        if (c.modelType() != null && c.modelType().startsWith("chatglm")) {
            e.chatglm();
        } else {
            e.decoder();
        }
        return List.copyOf(e.out);
    }

    /** What the estimate leaves out or assumes, for the report. */
    public static List<String> caveats(ModelConfig c) {
        List<String> notes = new ArrayList<>();
        ModelConfig.Quantization q = c.quantization();
        if (q != null && !("fp8".equalsIgnoreCase(q.method()) && q.weightBlockSize().size() == 2)) {
            notes.add("quantization " + q.method() + " is not modelled by the config estimate: tensors are sized at "
                    + c.torchDtype() + "; expect the real checkpoint to be smaller");
        }
        if (c.hasVision()) {
            notes.add("vision_config present: the vision tower is not estimated from config");
        }
        if (c.torchDtype() == null) {
            notes.add("no torch_dtype: tensors sized as bfloat16");
        }
        return notes;
    }

    private void decoder() {
        int h = c.hiddenSize();
        int layers = c.numLayers();
        add("model.embed_tokens.weight", wd, c.vocabSize(), h);
        for (int i = 0; i < layers + c.numMtpLayers(); i++) {
            String p = "model.layers." + i + ".";
            boolean mtp = i >= layers;
            if (mtp) {
                // DeepSeek-V3 MTP module (modeling_deepseek / vLLM deepseek_mtp.py)
                add(p + "enorm.weight", wd, h);
                add(p + "hnorm.weight", wd, h);
                // eh_proj stays BF16 in DeepSeek-V3/R1 (not in the fp8 set): with it BF16 the
                // estimate is 11,888,393 B under the 163 LFS objects' sum (688,586,727,753 B),
                // about 129 B of JSON header per tensor; with it FP8 the gap would be 102 MB more.
                add(p + "eh_proj.weight", wd, h, 2L * h);
                add(p + "shared_head.norm.weight", wd, h);
                add(p + "shared_head.head.weight", wd, c.vocabSize(), h);
                add(p + "embed_tokens.weight", wd, c.vocabSize(), h);
            }
            add(p + "input_layernorm.weight", wd, h);
            add(p + "post_attention_layernorm.weight", wd, h);
            attention(p + "self_attn.");
            mlp(p, i);
        }
        add("model.norm.weight", wd, h);
        if (!c.tieWordEmbeddings()) {
            add("lm_head.weight", wd, c.vocabSize(), h);
        }
    }

    private void attention(String p) {
        int h = c.hiddenSize();
        int heads = c.numAttentionHeads();
        if (c.isMla()) {
            int nope = require(c.qkNopeHeadDim(), "qk_nope_head_dim");
            int rope = require(c.qkRopeHeadDim(), "qk_rope_head_dim");
            int v = require(c.vHeadDim(), "v_head_dim");
            int kvLora = c.kvLoraRank();
            if (c.qLoraRank() != null && c.qLoraRank() > 0) {
                linear(p + "q_a_proj", c.qLoraRank(), h, false);
                add(p + "q_a_layernorm.weight", wd, c.qLoraRank());
                linear(p + "q_b_proj", (long) heads * (nope + rope), c.qLoraRank(), false);
            } else {
                linear(p + "q_proj", (long) heads * (nope + rope), h, false);
            }
            linear(p + "kv_a_proj_with_mqa", kvLora + rope, h, false);
            add(p + "kv_a_layernorm.weight", wd, kvLora);
            linear(p + "kv_b_proj", (long) heads * (nope + v), kvLora, false);
            linear(p + "o_proj", h, (long) heads * v, false);
            return;
        }
        int hd = require(c.headDim(), "head_dim");
        int kv = require(c.numKvHeads(), "num_key_value_heads");
        linear(p + "q_proj", (long) heads * hd, h, c.attentionBias());
        linear(p + "k_proj", (long) kv * hd, h, c.attentionBias());
        linear(p + "v_proj", (long) kv * hd, h, c.attentionBias());
        linear(p + "o_proj", h, (long) heads * hd, false);
        if (c.qkNorm()) {
            add(p + "q_norm.weight", wd, hd);
            add(p + "k_norm.weight", wd, hd);
        }
    }

    private boolean moeLayer(int i) {
        if (!c.isMoe()) {
            return false;
        }
        String type = c.modelType() == null ? "" : c.modelType();
        int freq = c.moeLayerFreq() == null || c.moeLayerFreq() < 1 ? 1 : c.moeLayerFreq();
        if (type.startsWith("qwen")) {
            // Qwen2/3-MoE: sparse when not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0
            return !c.mlpOnlyLayers().contains(i) && (i + 1) % freq == 0;
        }
        int firstDense = c.firstKDenseReplace() == null ? 0 : c.firstKDenseReplace();
        return i >= firstDense && i % freq == 0;
    }

    private void mlp(String p, int i) {
        int h = c.hiddenSize();
        String type = c.modelType() == null ? "" : c.modelType().toLowerCase(Locale.ROOT);
        if (!moeLayer(i)) {
            int inter = require(c.intermediateSize(), "intermediate_size");
            linear(p + "mlp.gate_proj", inter, h, false);
            linear(p + "mlp.up_proj", inter, h, false);
            linear(p + "mlp.down_proj", h, inter, false);
            return;
        }
        int e = c.numExperts();
        int mi = require(c.moeIntermediateSize(), "moe_intermediate_size");
        if (type.equals("mixtral")) {
            add(p + "block_sparse_moe.gate.weight", wd, e, h);
            for (int x = 0; x < e; x++) {
                String q = p + "block_sparse_moe.experts." + x + ".";
                linear(q + "w1", mi, h, false);
                linear(q + "w2", h, mi, false);
                linear(q + "w3", mi, h, false);
            }
            return;
        }
        // router: ReplicatedLinear in vLLM, kept in the model dtype (never fp8)
        add(p + "mlp.gate.weight", wd, e, h);
        if (type.equals("deepseek_v3") || type.equals("glm4_moe") || type.equals("kimi_k2")) {
            add(p + "mlp.gate.e_score_correction_bias", "F32", e);
        }
        for (int x = 0; x < e; x++) {
            String q = p + "mlp.experts." + x + ".";
            linear(q + "gate_proj", mi, h, false);
            linear(q + "up_proj", mi, h, false);
            linear(q + "down_proj", h, mi, false);
        }
        if (c.sharedExpertIntermediateSize() != null && c.sharedExpertIntermediateSize() > 0) {
            int si = c.sharedExpertIntermediateSize();
            linear(p + "mlp.shared_expert.gate_proj", si, h, false);
            linear(p + "mlp.shared_expert.up_proj", si, h, false);
            linear(p + "mlp.shared_expert.down_proj", h, si, false);
            add(p + "mlp.shared_expert_gate.weight", wd, 1, h);
        } else if (c.numSharedExperts() != null && c.numSharedExperts() > 0) {
            long si = (long) mi * c.numSharedExperts();
            linear(p + "mlp.shared_experts.gate_proj", si, h, false);
            linear(p + "mlp.shared_experts.up_proj", si, h, false);
            linear(p + "mlp.shared_experts.down_proj", h, si, false);
        }
    }

    private void chatglm() {
        int h = c.hiddenSize();
        int heads = c.numAttentionHeads();
        int hd = require(c.headDim(), "kv_channels");
        int kv = require(c.numKvHeads(), "multi_query_group_num");
        int ffn = require(c.intermediateSize(), "ffn_hidden_size");
        add("transformer.embedding.word_embeddings.weight", wd, c.vocabSize(), h);
        for (int i = 0; i < c.numLayers(); i++) {
            String p = "transformer.encoder.layers." + i + ".";
            add(p + "input_layernorm.weight", wd, h);
            linear(p + "self_attention.query_key_value", (long) (heads + 2 * kv) * hd, h, c.attentionBias());
            linear(p + "self_attention.dense", h, (long) heads * hd, false);
            add(p + "post_attention_layernorm.weight", wd, h);
            linear(p + "mlp.dense_h_to_4h", 2L * ffn, h, false);
            linear(p + "mlp.dense_4h_to_h", h, ffn, false);
        }
        add("transformer.encoder.final_layernorm.weight", wd, h);
        if (!c.tieWordEmbeddings()) {
            add("transformer.output_layer.weight", wd, c.vocabSize(), h);
        }
    }

    /** A linear layer's weight (fp8 with its block scale when the config says so) and bias. */
    private void linear(String prefix, long out, long in, boolean bias) {
        if (fp8Block) {
            add(prefix + ".weight", SafetensorsDtype.F8_E4M3.name(), out, in);
            add(prefix + ".weight_scale_inv", "F32", ceilDiv(out, b0), ceilDiv(in, b1));
        } else {
            add(prefix + ".weight", wd, out, in);
        }
        if (bias) {
            add(prefix + ".bias", wd, out);
        }
    }

    private void add(String name, String dtype, long... dims) {
        List<Long> shape = new ArrayList<>();
        long elements = 1;
        for (long d : dims) {
            shape.add(d);
            elements *= d;
        }
        int bits = SafetensorsDtype.parse(dtype).orElseThrow().bits();
        out.add(new CheckpointTensor(name, dtype, shape, elements * bits / 8));
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static int require(Integer v, String key) {
        if (v == null) {
            throw new IllegalArgumentException("config.json has no " + key + "; the weights cannot be estimated without it");
        }
        return v;
    }

    /** The safetensors dtype name for a config {@code torch_dtype}; BF16 when absent or unknown. */
    static String weightDtype(String torchDtype) {
        if (torchDtype == null) {
            return "BF16";
        }
        return switch (torchDtype.toLowerCase(Locale.ROOT).replace("torch.", "")) {
            case "float32", "float" -> "F32";
            case "float16", "half" -> "F16";
            case "float64" -> "F64";
            default -> "BF16";
        };
    }
}

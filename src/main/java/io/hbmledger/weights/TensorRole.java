package io.hbmledger.weights;

import io.hbmledger.evidence.modelconfig.ModelConfig;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one checkpoint tensor is, read from its Hugging Face name: the layer kind that vLLM
 * builds for it (which decides the shard rule), its component, its decoder layer, and whether
 * it is a quantization scale or part of an MTP layer. Pure.
 *
 * @param kind the layer kind
 * @param component the table row it belongs to
 * @param layer decoder layer index, or -1 outside the layers
 * @param scale true for quantization scales / zero points (component QUANT_SCALES)
 * @param mtp true for multi-token-prediction (drafter) tensors
 */
public record TensorRole(Kind kind, ModelPart component, int layer, boolean scale, boolean mtp) {

    /** The vLLM layer kind a tensor is loaded into. */
    public enum Kind {
        EMBED, LM_HEAD, NORM, Q, KV, QKV, O, MLA_DOWN, MLA_UP, MLP_COL, MLP_ROW, ROUTER, EXPERT,
        SHARED_COL, SHARED_ROW, SHARED_GATE, VISION, OTHER
    }

    private static final Pattern LAYER = Pattern.compile("(?:^|\\.)(?:layers|h|blocks|layer)\\.(\\d+)\\.");
    private static final List<String> SCALE_SUFFIXES = List.of(".weight_scale_inv", ".weight_scale_2", ".weight_scale",
            ".input_scale", ".weight_global_scale", ".input_global_scale", ".scales", ".qzeros", ".g_idx",
            ".weight_zero_point", ".weight_offset", ".deq_scale", ".quant_bias", ".input_offset", ".weight_packed_scale");

    /**
     * @param config the model's config, or null (then MTP layers are recognised only by name)
     */
    public static TensorRole of(String name, ModelConfig config) {
        String base = name;
        boolean scale = false;
        for (String s : SCALE_SUFFIXES) {
            if (name.endsWith(s)) {
                base = name.substring(0, name.length() - s.length()) + ".weight";
                scale = true;
                break;
            }
        }
        if (base.endsWith(".qweight")) {
            base = base.substring(0, base.length() - ".qweight".length()) + ".weight";
        }
        Matcher m = LAYER.matcher(base);
        int layer = m.find() ? Integer.parseInt(m.group(1)) : -1;
        boolean mtp = base.startsWith("mtp.") || base.startsWith("model.mtp.") || base.contains(".mtp.")
                || (config != null && config.numLayers() != null && config.numMtpLayers() > 0 && layer >= config.numLayers());
        Kind kind = kind(base, config);
        ModelPart component;
        if (scale) {
            component = ModelPart.QUANT_SCALES;
        } else if (mtp) {
            component = ModelPart.MTP;
        } else {
            component = switch (kind) {
                case EMBED -> ModelPart.EMBEDDING;
                case LM_HEAD -> ModelPart.LM_HEAD;
                case NORM -> ModelPart.NORMS;
                case Q, KV, QKV, O, MLA_DOWN, MLA_UP -> ModelPart.ATTENTION;
                case MLP_COL, MLP_ROW -> ModelPart.MLP;
                case ROUTER, EXPERT -> ModelPart.EXPERTS;
                case SHARED_COL, SHARED_ROW, SHARED_GATE -> ModelPart.SHARED_EXPERT;
                case VISION -> ModelPart.VISION;
                case OTHER -> ModelPart.OTHER;
            };
        }
        return new TensorRole(kind, component, layer, scale, mtp);
    }

    private static Kind kind(String n, ModelConfig config) {
        if (n.contains("vision_tower") || n.startsWith("visual.") || n.contains(".visual.") || n.contains("vision_model")
                || n.contains("multi_modal_projector") || n.contains("mm_projector") || n.contains("vision_embed")) {
            return Kind.VISION;
        }
        if (n.contains("lm_head") || n.contains("output_layer") || n.contains("shared_head.head") || n.contains("embed_out")) {
            return Kind.LM_HEAD;
        }
        if (n.contains("embed_tokens") || n.contains("word_embeddings") || n.contains("tok_embeddings") || n.startsWith("wte.")
                || n.contains(".wte.")) {
            return Kind.EMBED;
        }
        String last = lastModule(n);
        if (last.contains("norm") || last.startsWith("ln_") || last.equals("ln_f") || last.endsWith("layernorm")) {
            return Kind.NORM;
        }
        if (n.contains("shared_expert_gate")) {
            return Kind.SHARED_GATE;
        }
        if (n.contains(".shared_expert.") || n.contains(".shared_experts.")) {
            return isRow(last) ? Kind.SHARED_ROW : Kind.SHARED_COL;
        }
        if (n.contains(".experts.") || n.endsWith(".experts") || n.contains(".experts_")) {
            return Kind.EXPERT;
        }
        if (last.equals("gate") || last.equals("router") || n.endsWith("e_score_correction_bias")) {
            return Kind.ROUTER;
        }
        boolean mla = config != null && config.isMla();
        switch (last) {
            case "q_a_proj", "kv_a_proj_with_mqa", "fused_qkv_a_proj" -> {
                return Kind.MLA_DOWN;
            }
            case "q_b_proj", "kv_b_proj" -> {
                return Kind.MLA_UP;
            }
            case "q_proj" -> {
                return mla ? Kind.MLA_UP : Kind.Q;
            }
            case "k_proj", "v_proj" -> {
                return Kind.KV;
            }
            case "qkv_proj", "query_key_value", "c_attn", "Wqkv", "W_pack" -> {
                return Kind.QKV;
            }
            case "o_proj", "out_proj" -> {
                return Kind.O;
            }
            default -> {
            }
        }
        boolean attn = n.contains("attn") || n.contains("attention");
        if (attn && (last.equals("dense") || last.equals("c_proj"))) {
            return Kind.O;
        }
        if (isRow(last)) {
            return Kind.MLP_ROW;
        }
        if (List.of("gate_proj", "up_proj", "gate_up_proj", "w1", "w3", "fc1", "c_fc", "dense_h_to_4h").contains(last)) {
            return Kind.MLP_COL;
        }
        return Kind.OTHER;
    }

    private static boolean isRow(String last) {
        return List.of("down_proj", "w2", "fc2", "c_proj", "dense_4h_to_h").contains(last);
    }

    /** The module name before the final parameter name ({@code q_proj} of {@code ...q_proj.weight}). */
    private static String lastModule(String n) {
        int dot = n.lastIndexOf('.');
        String head = dot < 0 ? n : n.substring(0, dot);
        int prev = head.lastIndexOf('.');
        return prev < 0 ? head : head.substring(prev + 1);
    }
}

package io.hbmledger.evidence.modelconfig;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.EvidenceException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses a Hugging Face {@code config.json} into a {@link ModelConfig}. Pure: text in.
 *
 * <p>Key spellings followed (transformers' configuration classes and the model repos' own
 * configuration_*.py): {@code num_hidden_layers} / {@code num_layers} (ChatGLM) /
 * {@code n_layer}; {@code num_key_value_heads} / {@code multi_query_group_num} (ChatGLM with
 * {@code multi_query_attention}); {@code head_dim} / {@code kv_channels}; routed experts
 * {@code n_routed_experts} (DeepSeek, GLM-4.5) / {@code num_local_experts} (Mixtral) /
 * {@code num_experts} (Qwen-MoE); {@code padded_vocab_size} (ChatGLM). Multimodal configs that
 * nest the language model under {@code text_config} are read there when the top level lacks
 * the key.
 */
public final class ModelConfigParser {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode root;
    private final JsonNode text;
    private final Map<String, String> fieldKeys = new HashMap<>();
    private Map<String, Integer> keyLines = Map.of();

    /** A size key holding something other than a non-negative integer; turned into an EvidenceException by parse. */
    private static final class BadValue extends RuntimeException {
        final String key;
        final String why;

        BadValue(String key, String why) {
            super(key + ": " + why, null, false, false);
            this.key = key;
            this.why = why;
        }
    }

    private ModelConfigParser(JsonNode root) {
        this.root = root;
        JsonNode tc = root.path("text_config");
        this.text = tc.isObject() ? tc : null;
    }

    /**
     * @throws EvidenceException when the text is not a JSON object (naming the line)
     */
    public static ModelConfig parse(String display, String json) throws EvidenceException {
        JsonNode root;
        Map<String, Integer> lines;
        try {
            root = JSON.readTree(json);
            lines = JsonKeyLines.of(json);
        } catch (JsonProcessingException e) {
            throw new EvidenceException(display, e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                    "not valid JSON (" + e.getOriginalMessage() + "); expected a Hugging Face config.json object");
        } catch (IOException e) {
            throw new EvidenceException(display, 0, "not valid JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new EvidenceException(display, 1, "expected a JSON object (config.json), found " + (root == null ? "nothing" : root.getNodeType()));
        }
        ModelConfigParser p = new ModelConfigParser(root);
        p.keyLines = lines;
        try {
            return p.build(lines);
        } catch (BadValue e) {
            throw new EvidenceException(display, lines.getOrDefault(e.key, 0), "\"" + e.key + "\" " + e.why);
        }
    }

    private ModelConfig build(Map<String, Integer> lines) {
        String modelType = str("model_type", "model_type");
        List<String> arch = new ArrayList<>();
        root.path("architectures").forEach(a -> arch.add(a.asText()));
        boolean chatglm = modelType != null && (modelType.equals("chatglm") || modelType.equals("glm"))
                && root.has("num_layers");

        Integer layers = integer("num_layers", "num_hidden_layers", "num_layers", "n_layer");
        Integer hidden = integer("hidden_size", "hidden_size", "n_embd", "d_model");
        Integer heads = integer("num_attention_heads", "num_attention_heads", "n_head");
        Integer kvLoraRank = integer("kv_lora_rank", "kv_lora_rank");
        boolean mla = kvLoraRank != null && kvLoraRank > 0;

        Integer kvHeads = null;
        if (!mla) {
            if (chatglm) {
                kvHeads = root.path("multi_query_attention").asBoolean(false)
                        ? integer("num_kv_heads", "multi_query_group_num") : heads;
                if (!root.path("multi_query_attention").asBoolean(false)) {
                    derivedFrom("num_kv_heads", "num_attention_heads");
                }
            } else {
                kvHeads = integer("num_kv_heads", "num_key_value_heads", "num_kv_heads");
                if (kvHeads == null && heads != null) {
                    // transformers' configs default num_key_value_heads to num_attention_heads (MHA)
                    kvHeads = heads;
                    derivedFrom("num_kv_heads", "num_attention_heads");
                }
            }
        }
        Integer headDim = null;
        boolean derived = false;
        if (!mla) {
            headDim = integer("head_dim", "head_dim", "kv_channels");
            if (headDim == null && hidden != null && heads != null && heads > 0 && hidden % heads == 0) {
                headDim = hidden / heads;
                derived = true;
                derivedFrom("head_dim", "hidden_size");
            }
        }
        positive(layers, "num_layers");
        positive(hidden, "hidden_size");
        positive(heads, "num_attention_heads");
        positive(kvHeads, "num_kv_heads");
        positive(headDim, "head_dim");
        Integer vocab = integer("vocab_size", "padded_vocab_size", "vocab_size");
        if (!chatglm && root.has("vocab_size")) {
            vocab = integer("vocab_size", "vocab_size");
        }
        positive(vocab, "vocab_size");
        Integer inter = integer("intermediate_size", "intermediate_size", "ffn_hidden_size", "n_inner");
        Integer moeInter = integer("moe_intermediate_size", "moe_intermediate_size");
        Integer experts = integer("num_experts", "n_routed_experts", "num_local_experts", "num_experts");
        if (experts != null && experts <= 0) {
            experts = null;
            fieldKeys.remove("num_experts");
        }
        if (experts != null && moeInter == null && "mixtral".equals(modelType)) {
            // Mixtral has no moe_intermediate_size: each expert's MLP is intermediate_size wide (modeling_mixtral.py)
            moeInter = inter;
            derivedFrom("moe_intermediate_size", "intermediate_size");
        }
        Integer perTok = integer("num_experts_per_token", "num_experts_per_tok", "moe_topk");
        Integer shared = integer("num_shared_experts", "n_shared_experts");
        Integer sharedInter = integer("shared_expert_intermediate_size", "shared_expert_intermediate_size");
        if (shared == null && sharedInter != null && sharedInter > 0) {
            // Qwen2-MoE: one shared expert, shared_expert_intermediate_size wide
            shared = 1;
            derivedFrom("num_shared_experts", "shared_expert_intermediate_size");
        }
        Integer firstDense = integer("first_k_dense_replace", "first_k_dense_replace");
        Integer freq = integer("moe_layer_freq", "moe_layer_freq", "decoder_sparse_step");
        List<Integer> mlpOnly = new ArrayList<>();
        node("mlp_only_layers").forEach(n -> mlpOnly.add(n.asInt()));
        Integer qLora = integer("q_lora_rank", "q_lora_rank");
        Integer nope = integer("qk_nope_head_dim", "qk_nope_head_dim");
        Integer rope = integer("qk_rope_head_dim", "qk_rope_head_dim");
        Integer vHead = integer("v_head_dim", "v_head_dim");
        Integer mtp = integer("num_mtp_layers", "num_nextn_predict_layers", "mtp_num_hidden_layers");
        JsonNode tie = node("tie_word_embeddings");
        boolean tied = tie.isBoolean() ? tie.asBoolean() : false;
        String dtype = str("torch_dtype", "torch_dtype", "dtype");
        boolean bias;
        JsonNode ab = node("attention_bias");
        JsonNode qkvb = node("add_qkv_bias");
        if (ab.isBoolean()) {
            bias = ab.asBoolean();
        } else if (qkvb.isBoolean()) {
            bias = qkvb.asBoolean();
        } else {
            // Qwen2 (and Qwen2-MoE) attention always has q/k/v bias (modeling_qwen2.py: bias=True)
            bias = modelType != null && modelType.startsWith("qwen2");
        }
        boolean qkNorm = modelType != null && modelType.startsWith("qwen3");
        ModelConfig.Quantization quant = null;
        JsonNode q = root.path("quantization_config");
        if (q.isObject()) {
            List<Integer> block = new ArrayList<>();
            q.path("weight_block_size").forEach(n -> block.add(n.asInt()));
            quant = new ModelConfig.Quantization(
                    q.path("quant_method").isTextual() ? q.get("quant_method").asText() : null,
                    q.path("fmt").isTextual() ? q.get("fmt").asText() : null, block,
                    q.path("bits").isInt() ? q.get("bits").asInt() : null,
                    q.path("group_size").isInt() ? q.get("group_size").asInt() : null,
                    q.path("kv_cache_scheme").path("num_bits").isInt() ? q.get("kv_cache_scheme").get("num_bits").asInt() : null);
        }
        return new ModelConfig(modelType, arch, layers, hidden, heads, kvHeads, headDim, derived, vocab, inter, moeInter,
                experts, perTok, shared, sharedInter, firstDense, freq, mlpOnly, kvLoraRank, qLora, nope, rope, vHead,
                mtp == null ? 0 : mtp, tied, dtype, bias, qkNorm, quant, root.has("vision_config"), lines, fieldKeys);
    }

    /**
     * A value taken from another key (a default): it cites that key's line, and the key is kept
     * under {@code field + ".derived_from"} so that readers can say the value is derived.
     */
    private void derivedFrom(String field, String sourceField) {
        String key = fieldKeys.get(sourceField);
        if (key != null) {
            fieldKeys.put(field, key);
            fieldKeys.put(field + ModelConfig.DERIVED_SUFFIX, key);
        }
    }

    private void positive(Integer v, String field) {
        if (v != null && v <= 0) {
            throw new BadValue(fieldKeys.getOrDefault(field, field), "is " + v + "; expected a positive integer");
        }
    }

    /**
     * The first key present, top level first, then text_config; records which key was used. A
     * JSON null counts as absent (transformers writes {@code "head_dim": null} for "derive it").
     *
     * @throws BadValue when the key holds a string, a fraction, a negative or a huge number
     */
    private Integer integer(String field, String... keys) {
        for (String k : keys) {
            Integer v = intAt(root.get(k), k);
            if (v != null) {
                fieldKeys.put(field, k);
                return v;
            }
        }
        if (text != null) {
            for (String k : keys) {
                Integer v = intAt(text.get(k), "text_config." + k);
                if (v != null) {
                    fieldKeys.put(field, "text_config." + k);
                    return v;
                }
            }
        }
        return null;
    }

    private static Integer intAt(JsonNode n, String key) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw new BadValue(key, "is " + n + "; expected an integer");
        }
        if (n.asInt() < 0) {
            throw new BadValue(key, "is " + n + "; expected a non-negative integer");
        }
        return n.asInt();
    }

    private String str(String field, String... keys) {
        for (String k : keys) {
            JsonNode n = root.get(k);
            if (n != null && n.isTextual()) {
                fieldKeys.put(field, k);
                return n.asText();
            }
        }
        if (text != null) {
            for (String k : keys) {
                JsonNode n = text.get(k);
                if (n != null && n.isTextual()) {
                    fieldKeys.put(field, "text_config." + k);
                    return n.asText();
                }
            }
        }
        return null;
    }

    private JsonNode node(String key) {
        JsonNode n = root.path(key);
        if (n.isMissingNode() && text != null) {
            n = text.path(key);
        }
        return n;
    }
}

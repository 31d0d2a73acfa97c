package io.hbmledger.evidence.modelconfig;

import java.util.List;
import java.util.Map;

/**
 * The sizing-relevant fields of a Hugging Face {@code config.json}, resolved across the
 * families' spellings (Llama, Qwen2/Qwen3, Qwen2-MoE/Qwen3-MoE, Mixtral, DeepSeek-V2/V3 with MLA
 * and MTP, ChatGLM/GLM-4, GLM-4.5 MoE). A field the file does not give is null, never 0.
 *
 * @param modelType {@code model_type}
 * @param numLayers decoder layers of the main model (MTP / next-n layers excluded)
 * @param numKvHeads KV heads; null for MLA, where the KV cache is one latent per layer
 * @param headDim head dimension ({@code head_dim}, {@code kv_channels}, or hidden / heads)
 * @param headDimDerived true when no key gave the head dimension
 * @param numExperts routed experts; null for a dense model
 * @param numSharedExperts shared experts (DeepSeek {@code n_shared_experts}); Qwen2-MoE's one
 *     shared expert counts as 1
 * @param sharedExpertIntermediateSize the shared expert's intermediate size (Qwen2-MoE), or null
 * @param firstKDenseReplace leading dense layers of a MoE model (DeepSeek, GLM-4.5)
 * @param numMtpLayers multi-token-prediction layers stored after the main layers
 *     ({@code num_nextn_predict_layers}), 0 when none
 * @param torchDtype the checkpoint dtype as written ({@code torch_dtype} or {@code dtype})
 * @param attentionBias q/k/v projection bias (Qwen2 always has one; others say so in
 *     {@code attention_bias} or {@code add_qkv_bias})
 * @param qkNorm per-head q/k RMSNorm weights (Qwen3)
 * @param quantization the {@code quantization_config} block, or null
 * @param hasVision a {@code vision_config} block is present (vision weights are not
 *     estimated from config)
 * @param keyLines 1-based line of each key path in the file
 * @param fieldKeys for each resolved field name (e.g. {@code "num_layers"}), the key path it came from
 */
public record ModelConfig(
        String modelType,
        List<String> architectures,
        Integer numLayers,
        Integer hiddenSize,
        Integer numAttentionHeads,
        Integer numKvHeads,
        Integer headDim,
        boolean headDimDerived,
        Integer vocabSize,
        Integer intermediateSize,
        Integer moeIntermediateSize,
        Integer numExperts,
        Integer numExpertsPerToken,
        Integer numSharedExperts,
        Integer sharedExpertIntermediateSize,
        Integer firstKDenseReplace,
        Integer moeLayerFreq,
        List<Integer> mlpOnlyLayers,
        Integer kvLoraRank,
        Integer qLoraRank,
        Integer qkNopeHeadDim,
        Integer qkRopeHeadDim,
        Integer vHeadDim,
        int numMtpLayers,
        boolean tieWordEmbeddings,
        String torchDtype,
        boolean attentionBias,
        boolean qkNorm,
        Quantization quantization,
        boolean hasVision,
        Map<String, Integer> keyLines,
        Map<String, String> fieldKeys) {

    public ModelConfig {
        architectures = List.copyOf(architectures);
        mlpOnlyLayers = List.copyOf(mlpOnlyLayers);
        keyLines = Map.copyOf(keyLines);
        fieldKeys = Map.copyOf(fieldKeys);
    }

    /**
     * The {@code quantization_config} block.
     *
     * @param method {@code quant_method} (fp8, gptq, awq, compressed-tensors, ...)
     * @param fmt {@code fmt} (e4m3) or null
     * @param weightBlockSize {@code weight_block_size} ([128, 128]) or empty
     * @param bits {@code bits} (gptq/awq) or null
     * @param groupSize {@code group_size} or null
     * @param kvCacheBits {@code kv_cache_scheme.num_bits} (compressed-tensors: a quantized KV cache), or null
     */
    public record Quantization(String method, String fmt, List<Integer> weightBlockSize, Integer bits, Integer groupSize,
                               Integer kvCacheBits) {
        public Quantization {
            weightBlockSize = List.copyOf(weightBlockSize);
        }
    }

    /** Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds one latent per layer. */
    public boolean isMla() {
        return kvLoraRank != null && kvLoraRank > 0;
    }

    public boolean isMoe() {
        return numExperts != null && numExperts > 0;
    }

    /**
     * Bytes per element of the checkpoint dtype ({@code torch_dtype}): 4 for float32, 2 for
     * float16/bfloat16, 1 for float8, 8 for float64; null when unknown or absent.
     */
    public Integer dtypeBytes() {
        return dtypeBytes(torchDtype);
    }

    /** Bytes per element of a torch / vLLM dtype name, or null when the name is not known. */
    public static Integer dtypeBytes(String dtype) {
        if (dtype == null) {
            return null;
        }
        String d = dtype.toLowerCase(java.util.Locale.ROOT).replace("torch.", "");
        return switch (d) {
            case "float32", "float", "fp32" -> 4;
            case "float16", "half", "fp16", "bfloat16", "bf16" -> 2;
            case "float64", "double" -> 8;
            case "float8", "fp8", "fp8_e4m3", "fp8_e5m2", "float8_e4m3fn", "float8_e5m2", "int8" -> 1;
            default -> null;
        };
    }

    /** Suffix of the {@link #fieldKeys} entry naming the key a derived (defaulted) field was taken from. */
    public static final String DERIVED_SUFFIX = ".derived_from";

    /**
     * The config key a field's value was taken from when the file has no key of its own for it
     * (e.g. Mixtral's moe_intermediate_size from intermediate_size), or null when it is read as written.
     */
    public String derivedFrom(String field) {
        return fieldKeys.get(field + DERIVED_SUFFIX);
    }

    /** Line of the key a resolved field came from, or 1 when unknown. */
    public int lineOf(String field) {
        String key = fieldKeys.get(field);
        return key == null ? 1 : keyLines.getOrDefault(key, 1);
    }

    /**
     * KV cache bytes per token over all main-model layers, for one copy of the cache.
     * MHA/GQA: 2 (K and V) x layers x KV heads x head_dim x element bytes. MLA (DeepSeek-V2/V3,
     * vLLM's MLA backends cache the compressed latent and the shared rope key):
     * layers x (kv_lora_rank + qk_rope_head_dim) x element bytes. MTP layers are not counted.
     *
     * @param elementBytes bytes per cached element (the KV dtype)
     * @return bytes per token, or null when a needed field is missing
     */
    public Long kvBytesPerToken(int elementBytes) {
        if (numLayers == null) {
            return null;
        }
        if (isMla()) {
            if (qkRopeHeadDim == null) {
                return null;
            }
            return (long) numLayers * (kvLoraRank + qkRopeHeadDim) * elementBytes;
        }
        if (numKvHeads == null || headDim == null) {
            return null;
        }
        return 2L * numLayers * numKvHeads * headDim * elementBytes;
    }

    /** The formula behind {@link #kvBytesPerToken}, with this config's numbers. */
    public String kvFormula(int elementBytes, String dtypeName) {
        if (isMla()) {
            return numLayers + " layers x (kv_lora_rank " + kvLoraRank + " + qk_rope_head_dim " + qkRopeHeadDim
                    + ") x " + elementBytes + " B (" + dtypeName + ")";
        }
        return "2 (K,V) x " + numLayers + " layers x " + numKvHeads + " kv heads x " + headDim + " head_dim x "
                + elementBytes + " B (" + dtypeName + ")";
    }
}

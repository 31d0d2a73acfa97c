package io.hbmledger.weights;

import io.hbmledger.evidence.modelconfig.ModelConfig;

/**
 * KV cache bytes per token from config.json, whole model and per device. Estimated.
 *
 * <p>MHA/GQA: 2 x layers x KV heads x head_dim x element bytes; per device, each TP rank holds
 * max(1, KV heads / tp) heads (vLLM replicates a KV head when tp exceeds the KV head count).
 * MLA: layers x (kv_lora_rank + qk_rope_head_dim) x element bytes, and every TP rank holds the
 * whole latent (the latent is not split by heads). Under PP a device holds its stage's layers.
 *
 * @param bytesPerToken all main-model layers, one copy
 * @param bytesPerTokenPerDevice on the device of the stage with the most layers
 * @param elementBytes bytes per cached element
 * @param dtype the KV dtype named
 * @param formula the whole-model formula with numbers
 * @param blockSize tokens per block
 * @param bytesPerBlockPerDevice blockSize x bytesPerTokenPerDevice
 */
public record KvCacheEstimate(long bytesPerToken, long bytesPerTokenPerDevice, int elementBytes, String dtype,
                              String formula, int blockSize, long bytesPerBlockPerDevice) {

    /**
     * @return the estimate, or null when the config lacks the sizes
     */
    public static KvCacheEstimate of(ModelConfig c, ParallelLayout layout, int elementBytes, String dtype, int blockSize) {
        Long whole = c.kvBytesPerToken(elementBytes);
        if (whole == null) {
            return null;
        }
        int stageLayers = WeightsPlanner.maxStageLayers(c.numLayers(), layout.pp());
        long perDevice;
        if (c.isMla()) {
            perDevice = (long) stageLayers * (c.kvLoraRank() + c.qkRopeHeadDim()) * elementBytes;
        } else {
            int kvPer = layout.tp() >= c.numKvHeads() ? 1 : c.numKvHeads() / layout.tp();
            perDevice = 2L * stageLayers * kvPer * c.headDim() * elementBytes;
        }
        return new KvCacheEstimate(whole, perDevice, elementBytes, dtype, c.kvFormula(elementBytes, dtype), blockSize,
                perDevice * blockSize);
    }
}

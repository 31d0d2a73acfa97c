package io.hbmledger.weights;

/**
 * Serving settings that change the per-device figure.
 *
 * @param dtype vLLM {@code --dtype}: {@code auto} (the checkpoint's torch_dtype, except that
 *     float32 checkpoints are served in 16 bits) or a dtype name
 * @param kvCacheDtype vLLM {@code --kv-cache-dtype}: {@code auto} (the served dtype) or e.g. {@code fp8}
 * @param drafterLoaded true when MTP speculative decoding loads the MTP layers
 * @param blockSize KV cache block size in tokens (vLLM {@code --block-size}; 128 on Ascend)
 */
public record PlanOptions(String dtype, String kvCacheDtype, boolean drafterLoaded, int blockSize) {

    public static PlanOptions defaults() {
        return new PlanOptions("auto", "auto", false, 128);
    }
}

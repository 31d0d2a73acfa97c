package io.hbmledger.weights;

/**
 * Serving settings that change the per-device figure.
 *
 * @param dtype vLLM {@code --dtype}: {@code auto} (the checkpoint's torch_dtype, except that
 *     float32 checkpoints are served in 16 bits) or a dtype name
 * @param kvCacheDtype vLLM {@code --kv-cache-dtype}: {@code auto} (the served dtype) or e.g. {@code fp8}
 * @param drafterLoaded true when MTP speculative decoding loads the MTP layers
 * @param blockSize KV cache block size in tokens (vLLM {@code --block-size}; 128 on Ascend)
 * @param fp8AsBf16 true to count FP8 weights as served after a conversion to 16 bits (DeepSeek's
 *     fp8_cast_bf16.py, as Ascend deployments without W8A8 do: Ascend NPUs have no FP8), their
 *     block scales dropped; false to count them as stored, 1 byte per parameter (vLLM's
 *     Fp8LinearMethod on GPUs with FP8; also close to a W8A8 int8 conversion)
 */
public record PlanOptions(String dtype, String kvCacheDtype, boolean drafterLoaded, int blockSize, boolean fp8AsBf16) {

    /** FP8 weights counted as stored. */
    public PlanOptions(String dtype, String kvCacheDtype, boolean drafterLoaded, int blockSize) {
        this(dtype, kvCacheDtype, drafterLoaded, blockSize, false);
    }

    public static PlanOptions defaults() {
        return new PlanOptions("auto", "auto", false, 128);
    }
}

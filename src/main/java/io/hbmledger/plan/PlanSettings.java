package io.hbmledger.plan;

/**
 * The serving settings a plan is worked out for.
 *
 * @param utilization vLLM {@code --gpu-memory-utilization} (0..1]
 * @param maxModelLen {@code --max-model-len}, tokens; null: the model's max_position_embeddings
 * @param maxNumSeqs {@code --max-num-seqs}, or null when not given
 * @param maxNumBatchedTokens {@code --max-num-batched-tokens}: the tokens vLLM's profile run
 *     pushes through the model, which sets the activation peak; null when not given
 * @param kvCacheDtype {@code --kv-cache-dtype} ({@code auto}, {@code fp8}, ...)
 * @param dtype {@code --dtype}
 * @param enforceEager {@code --enforce-eager}: no graph pool; null when not given
 * @param blockSize KV block size in tokens
 * @param coTenantBytes memory other processes hold on the device when vLLM starts, or 0 when none
 */
public record PlanSettings(double utilization, Integer maxModelLen, Integer maxNumSeqs, Integer maxNumBatchedTokens,
                           String kvCacheDtype, String dtype, Boolean enforceEager, int blockSize, long coTenantBytes) {

    public PlanSettings withUtilization(double u) {
        return new PlanSettings(u, maxModelLen, maxNumSeqs, maxNumBatchedTokens, kvCacheDtype, dtype, enforceEager, blockSize, coTenantBytes);
    }

    public PlanSettings withMaxModelLen(int len) {
        return new PlanSettings(utilization, len, maxNumSeqs, maxNumBatchedTokens, kvCacheDtype, dtype, enforceEager, blockSize, coTenantBytes);
    }

    public PlanSettings withMaxNumSeqs(int n) {
        return new PlanSettings(utilization, maxModelLen, n, maxNumBatchedTokens, kvCacheDtype, dtype, enforceEager, blockSize, coTenantBytes);
    }

    public PlanSettings withMaxNumBatchedTokens(int n) {
        return new PlanSettings(utilization, maxModelLen, maxNumSeqs, n, kvCacheDtype, dtype, enforceEager, blockSize, coTenantBytes);
    }

    public PlanSettings withKvCacheDtype(String d) {
        return new PlanSettings(utilization, maxModelLen, maxNumSeqs, maxNumBatchedTokens, d, dtype, enforceEager, blockSize, coTenantBytes);
    }
}

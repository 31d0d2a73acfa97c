package io.hbmledger.weights;

/**
 * One table row: the tensors of one component that share one shard rule.
 *
 * @param component the component
 * @param rule how vLLM places these tensors
 * @param tensors number of tensors
 * @param parameters their element count (weights and scales alike)
 * @param totalBytes their bytes in the checkpoint (exact from headers, else estimated)
 * @param perDeviceBytes their bytes on the heaviest device (always an estimate), in the served dtype
 * @param formula how perDeviceBytes was worked out, with this model's numbers
 * @param storedDtype the safetensors dtype(s) of these tensors in the checkpoint ({@code F8_E4M3},
 *     {@code BF16}; several joined by {@code /}), or null when not known
 * @param servedDtype the dtype(s) perDeviceBytes counts them in, same spelling, or null when not known
 */
public record ComponentShare(ModelPart component, ShardRule rule, int tensors, long parameters, long totalBytes, long perDeviceBytes,
                             String formula, String storedDtype, String servedDtype) {

    /** A row without dtype labels (kept for callers built before the labels existed). */
    public ComponentShare(ModelPart component, ShardRule rule, int tensors, long parameters, long totalBytes, long perDeviceBytes,
                          String formula) {
        this(component, rule, tensors, parameters, totalBytes, perDeviceBytes, formula, null, null);
    }
}

package io.hbmledger.plan;

import io.hbmledger.weights.WeightsPlan;

/**
 * Everything a plan is worked out from; no I/O.
 *
 * @param model the model as named
 * @param weights the checkpoint's plan under the layout and the planned dtype / KV dtype / block size
 * @param hiddenSize the model's hidden_size, or null
 * @param maxPosition the model's max_position_embeddings, or null
 * @param device the device model, or null with {@code capacityBytes}
 * @param capacityBytes {@code --capacity}: the device's memory, overriding the device's; null when not given
 * @param settings the settings to plan
 * @param calibration the calibration run's figures, or null for defaults
 */
public record PlanInput(String model, WeightsPlan weights, Integer hiddenSize, Integer maxPosition, DeviceSpec device,
                        Long capacityBytes, PlanSettings settings, Calibration calibration) {
}

package io.hbmledger.plan;

import io.hbmledger.settings.ServingSettings;
import io.hbmledger.verdict.Figure;

/**
 * What a calibration run measured, per device (its first deployment device: TP ranks hold the
 * same), as the planner scales it. Each figure carries its confidence and source lines; null
 * when the run does not show it.
 *
 * @param run the run directory as named
 * @param settings the run's serving settings (run.json, then its vLLM log)
 * @param hiddenSize the run's model hidden_size when its checkpoint config is known, else null
 * @param weights vLLM's weights figure (reported)
 * @param activation the activation peak of vLLM's profile run
 * @param nonTorch vLLM's non-torch memory
 * @param profileRest activation peak and non-torch together, when the engine prints only the KV budget
 * @param hccl the HCCL / NCCL buffers (msprof npu_module_mem HCCL)
 * @param graphPool the graph pool captured after the KV cache
 * @param totalSeen the total the engine saw
 * @param kvBudget the KV cache the engine sized, bytes
 * @param kvTokens the KV cache in tokens
 * @param blocks the KV cache in blocks
 */
public record Calibration(String run, ServingSettings settings, Integer hiddenSize, Figure weights, Figure activation,
                          Figure nonTorch, Figure profileRest, Figure hccl, Figure graphPool, Figure totalSeen,
                          Figure kvBudget, Figure kvTokens, Figure blocks) {
}

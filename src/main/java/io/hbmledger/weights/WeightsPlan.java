package io.hbmledger.weights;

import java.util.List;

/**
 * A checkpoint's bytes per component and its estimated share on one device under a layout.
 *
 * @param layout the parallel layout
 * @param source where the tensor list came from (headers: totals exact; config: estimated)
 * @param servedDtype the dtype vLLM holds weights in ({@code --dtype auto} resolved)
 * @param components rows by component and rule, in component order
 * @param checkpointBytes all tensors' bytes in the checkpoint
 * @param perDeviceBytes weights on the heaviest device (estimated)
 * @param heaviestStage the PP stage of that device (0 without PP)
 * @param stageBytes per-device weights for each PP stage
 * @param kv KV cache bytes per token, or null without a config
 * @param mlaDerivedBytes per-device bytes of the W_UK_T / W_UV matrices vLLM's MLA backends derive
 *     from kv_b_proj after loading (0 for non-MLA models); not in perDeviceBytes
 * @param notes what the figure includes or leaves out, and why it may differ from vLLM's
 */
public record WeightsPlan(ParallelLayout layout, Checkpoint.Source source, String servedDtype,
                          List<ComponentShare> components, long checkpointBytes, long perDeviceBytes, int heaviestStage,
                          List<Long> stageBytes, KvCacheEstimate kv, long mlaDerivedBytes, List<String> notes) {

    public WeightsPlan {
        components = List.copyOf(components);
        stageBytes = List.copyOf(stageBytes);
        notes = List.copyOf(notes);
    }
}

package io.hbmledger.plan;

import static io.hbmledger.ledger.Units.GIB;
import static io.hbmledger.ledger.Units.MIB;

/**
 * The non-KV memory a plan assumes when no calibration run is given: one reference measurement
 * per engine family, scaled by the same rules as a calibration run ({@link NonKvRules}). Every
 * figure built on these is {@code estimated}.
 *
 * @param engine the engine family the reference stands for
 * @param activationOrRest the activation peak (or activation peak and non-torch together when
 *     {@code lumped}) of the reference run, bytes
 * @param lumped true when the reference engine prints only the KV budget, so the activation peak
 *     and non-torch memory are one figure
 * @param nonTorch non-torch memory of the reference at TP 1 (null when lumped), bytes
 * @param profileTokens tokens the reference's profile run used (max_num_batched_tokens)
 * @param hiddenSize the reference model's hidden_size
 * @param commBytes what TP &gt; 1 adds: HCCL / NCCL buffers per device, bytes
 * @param source where the reference figures were read
 * @param commSource where the communication figure was read
 */
public record EngineDefaults(String engine, long activationOrRest, boolean lumped, Long nonTorch, int profileTokens,
                             int hiddenSize, long commBytes, String source, String commSource) {

    /**
     * vllm-ascend V1 (Ascend): the Atlas A3 example, Llama-3.1-8B (hidden 4096) at TP 1 with
     * max_num_batched_tokens 2048: profile peak minus weights = 18187204096 - 16948692569 =
     * 1238511527 B; HCCL 404.0625 MiB per device at TP 2 from a corpus msprof npu_module_mem export.
     */
    public static final EngineDefaults VLLM_ASCEND = new EngineDefaults("vllm-ascend V1", 1238511527L, true, null, 2048, 4096,
            404 * MIB + 64 * 1024,
            "examples/a3-llama3.1-8b-eagle3 (vllm-ascend v0.9.1, Llama-3.1-8B, TP 1, max_num_batched_tokens 2048): profile peak"
                    + " floor(0.8 x 65464696832 - 34184553369) = 18187204096 B minus weights 15.7847 GiB (16948692569 B)"
                    + " = 1238511527 B of activation peak and non-torch memory",
            "HCCL 404.0625 MB at TP 2 (corpus msprof/msinsight_level1_rank0_npu_module_mem.csv)");

    /**
     * vLLM on CUDA: vLLM PR 10511's profile table, Llama-3-8B (hidden 4096) on an 80 GB GPU:
     * activation peak 1.26 GiB at TP 1 and at TP 2 (profile of max_model_len 8192 tokens),
     * non-torch 1.79 GiB at TP 1 and 3.58 GiB at TP 2 (NCCL adds 1.79 GiB).
     */
    public static final EngineDefaults VLLM_CUDA = new EngineDefaults("vLLM (CUDA)", Math.round(1.26 * GIB), false,
            Math.round(1.79 * GIB), 8192, 4096, Math.round(1.79 * GIB),
            "corpus vllm-log/vllm-pr10511 (Llama-3-8B, TP 1): 'PyTorch activation peak memory 1.26GiB',"
                    + " 'non_torch_memory 1.79GiB', profile of 8192 tokens (V0 max_num_batched_tokens = max_model_len 8192)",
            "corpus vllm-log/vllm-pr10511: non_torch_memory 3.58GiB at TP 2 - 1.79GiB at TP 1");

    public static EngineDefaults forDevice(DeviceSpec d) {
        return d != null && d.ascend() ? VLLM_ASCEND : VLLM_CUDA;
    }
}

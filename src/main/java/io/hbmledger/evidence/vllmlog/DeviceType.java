package io.hbmledger.evidence.vllmlog;

import java.util.Locale;
import java.util.Optional;

/**
 * The device type a vLLM log prints ({@code device_type} observations): the engine config's
 * {@code device_config=D} and the {@code "# D blocks"} line, where D is the platform's
 * {@code device_type} (vllm/platforms: {@code cuda} for NVIDIA and also for ROCm builds,
 * {@code npu} under vllm-ascend's NPUPlatform) or the executor's {@code device_config.device_type}
 * ({@code rocm} in some V0 builds' block line). The observation keeps the text as written
 * (evidence-v1); readers of it take this type instead of comparing strings.
 */
public enum DeviceType {
    CUDA, ROCM, NPU, XPU, HPU, TPU, CPU;

    /** The type a printed name stands for, any case; empty for a name vLLM does not print. */
    public static Optional<DeviceType> of(String printed) {
        if (printed == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(valueOf(printed.strip().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException notAType) {
            return Optional.empty();
        }
    }
}

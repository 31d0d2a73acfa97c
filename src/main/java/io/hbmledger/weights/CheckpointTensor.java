package io.hbmledger.weights;

import java.util.List;

/**
 * One weight tensor of a checkpoint, as a safetensors header states it (exact) or as the
 * config.json estimate builds it (estimated).
 *
 * @param name Hugging Face tensor name ({@code model.layers.0.self_attn.q_proj.weight})
 * @param dtype safetensors dtype name ({@code BF16}, {@code F8_E4M3}, ...)
 * @param shape dimensions
 * @param bytes data size in bytes
 */
public record CheckpointTensor(String name, String dtype, List<Long> shape, long bytes) {

    public CheckpointTensor {
        shape = List.copyOf(shape);
    }

    /** Element count (product of the shape; 1 for a scalar). */
    public long elements() {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }
}

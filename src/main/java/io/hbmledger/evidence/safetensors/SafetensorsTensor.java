package io.hbmledger.evidence.safetensors;

import java.util.List;

/**
 * One tensor entry of a safetensors header: never its data.
 *
 * @param name tensor name as in the header
 * @param dtype element type
 * @param shape dimensions (empty for a scalar)
 * @param begin start offset in bytes, relative to the start of the data section
 * @param end end offset (exclusive), relative to the start of the data section
 */
public record SafetensorsTensor(String name, SafetensorsDtype dtype, List<Long> shape, long begin, long end) {

    public SafetensorsTensor {
        shape = List.copyOf(shape);
    }

    /** Size of the tensor's data in bytes ({@code end - begin}). */
    public long bytes() {
        return end - begin;
    }
}

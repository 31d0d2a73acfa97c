package io.hbmledger.evidence.safetensors;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;

/**
 * One tensor entry of a safetensors header: never its data. Its size is exact from
 * {@code data_offsets} whatever its dtype; a dtype this reader does not know (a newer or
 * non-standard writer's name, such as {@code F8_E4M3FN}) leaves {@link #dtype()} null and is
 * said by {@link SafetensorsFindings}.
 *
 * @param name tensor name as in the header
 * @param dtype element type, or null when the header names one this reader does not know
 * @param shape dimensions (empty for a scalar)
 * @param begin start offset in bytes, relative to the start of the data section
 * @param end end offset (exclusive), relative to the start of the data section
 * @param dtypeName the dtype exactly as the header writes it
 */
public record SafetensorsTensor(String name, SafetensorsDtype dtype, List<Long> shape, long begin, long end,
                                String dtypeName) {

    public SafetensorsTensor {
        shape = List.copyOf(shape);
    }

    public SafetensorsTensor(String name, SafetensorsDtype dtype, List<Long> shape, long begin, long end) {
        this(name, dtype, shape, begin, end, dtype.name());
    }

    /** Size of the tensor's data in bytes ({@code end - begin}). */
    public long bytes() {
        return end - begin;
    }

    /**
     * How shape x dtype disagrees with the offsets, for a known dtype: {@code "BF16 x shape [4]
     * needs 8 bytes"}, or a size that is not a whole number of bytes. Empty when they agree or
     * when the dtype is unknown (nothing to compare).
     */
    public Optional<String> sizeDisagreement() {
        if (dtype == null) {
            return Optional.empty();
        }
        BigInteger elements = BigInteger.ONE;
        for (long d : shape) {
            elements = elements.multiply(BigInteger.valueOf(d));
        }
        BigInteger bits = elements.multiply(BigInteger.valueOf(dtype.bits()));
        if (bits.mod(BigInteger.valueOf(8)).signum() != 0) {
            return Optional.of(dtype + " x shape " + shape + " is " + bits + " bits, not a whole number of bytes");
        }
        BigInteger needed = bits.shiftRight(3);
        return needed.equals(BigInteger.valueOf(bytes())) ? Optional.empty()
                : Optional.of("data_offsets [" + begin + ", " + end + "] hold " + bytes() + " bytes but " + dtype
                        + " x shape " + shape + " needs " + needed + " bytes");
    }
}

package io.hbmledger.evidence.safetensors;

import java.util.Optional;

/**
 * Element types a safetensors header may name, with their width in bits.
 *
 * <p>Follows the {@code Dtype} enum and {@code Dtype::bitsize} of huggingface/safetensors
 * ({@code safetensors/src/tensor.rs}, 0.6 line): the sub-byte MX types F4 (4 bits) and
 * F6_E2M3 / F6_E3M2 (6 bits), F8_E8M0 (the MX block-scale type), and C64. F8_E4M3FNUZ and
 * F8_E5M2FNUZ come from the Python binding's dtype table of later releases (ROCm fp8
 * variants, one byte each). A tensor's byte size is elements x bits / 8, which must be whole.
 */
public enum SafetensorsDtype {
    BOOL(8), U8(8), I8(8),
    F4(4), F6_E2M3(6), F6_E3M2(6),
    F8_E5M2(8), F8_E4M3(8), F8_E8M0(8), F8_E4M3FNUZ(8), F8_E5M2FNUZ(8),
    I16(16), U16(16), F16(16), BF16(16),
    I32(32), U32(32), F32(32),
    I64(64), U64(64), F64(64), C64(64);

    private final int bits;

    SafetensorsDtype(int bits) {
        this.bits = bits;
    }

    /** Width of one element in bits (4, 6, 8, 16, 32 or 64). */
    public int bits() {
        return bits;
    }

    /** The dtype spelled exactly as in a header ({@code "BF16"}); names are case-sensitive. */
    public static Optional<SafetensorsDtype> parse(String name) {
        for (SafetensorsDtype d : values()) {
            if (d.name().equals(name)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    /** All names, for error messages. */
    public static String names() {
        StringBuilder b = new StringBuilder();
        for (SafetensorsDtype d : values()) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(d.name());
        }
        return b.toString();
    }
}

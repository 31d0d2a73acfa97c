package io.hbmledger.evidence.msprof;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes at a time (SWAR: SIMD within a register) over a {@code byte[]}: word reads,
 * finding a byte, counting and parsing ASCII digits. A word is read little-endian whatever the
 * platform's byte order (byte {@code i} of the array is bits {@code 8i..8i+7} of the word) and
 * with no alignment, so the results are the same on x86 and aarch64.
 */
final class Swar {

    /** Made at first use: where {@link #UNSAFE} reads the words, never. */
    private static final class Longs {
        static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    }

    static final long ONES = 0x0101010101010101L;
    static final long HIGHS = 0x8080808080808080L;
    private static final long LOW7 = 0x7F7F7F7F7F7F7F7FL;
    static final long COMMAS = 0x2C2C2C2C2C2C2C2CL;
    static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    static final long QUOTES = 0x2222222222222222L;

    static final long[] POW10 = {1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000,
        100_000_000, 1_000_000_000, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L};

    /** Masks of the first k bytes of a word, k = 0..8. */
    static final long[] FIRST_BYTES = {0, 0xFFL, 0xFFFFL, 0xFFFFFFL, 0xFFFFFFFFL, 0xFFFFFFFFFFL,
        0xFFFFFFFFFFFFL, 0xFFFFFFFFFFFFFFL, -1L};

    /**
     * {@code x / 10^f} for {@code 0 <= x < 2^63} and f = 0..7 as a multiply-high and a shift
     * (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994):
     * M = ceil(2^(64+s) / 10^f) with 2^s < 10^f <= 2^(s+1) is below 2^64 and its error below
     * 2^(s+1), which makes the quotient exact for every x below 2^63. M is above 2^63, so the
     * unsigned high product is the signed one plus x. For f = 0, M = 0 and s = 0 give x.
     * A division instruction costs ~20-40 cycles per amount on the hot path.
     */
    private static final long[] DIV_MAGIC = {0, 0xCCCCCCCCCCCCCCCDL, 0xA3D70A3D70A3D70BL, 0x83126E978D4FDF3CL,
        0xD1B71758E219652CL, 0xA7C5AC471B478424L, 0x8637BD05AF6C69B6L, 0xD6BF94D5E57A42BDL};
    private static final int[] DIV_SHIFT = {0, 3, 6, 9, 13, 16, 19, 23};

    private Swar() {
    }

    /** {@code x / 10^f}, rounded down, for {@code 0 <= x} and {@code 0 <= f <= 7} (see {@link #DIV_MAGIC}). */
    static long divPow10(long x, int f) {
        return (Math.multiplyHigh(x, DIV_MAGIC[f]) + x) >>> DIV_SHIFT[f];
    }

    /**
     * The end of the unquoted cell at {@code b[i..]}: the index of its first comma, line feed,
     * double quote or NUL byte (what ends it, or what the fast paths leave to the general one),
     * a word at a time; -1 when none comes before {@code n}. May read up to 8 bytes past
     * {@code n}; the index returned may be {@code n} or past it only when that byte lies in the
     * last word read.
     */
    static int cellEnd(byte[] b, int i, int n) {
        while (true) {
            long w = word(b, i);
            long stop = eq(w, COMMAS) | eq(w, NEWLINES) | eq(w, QUOTES) | eq(w, 0);
            if (stop != 0) {
                return i + (Long.numberOfTrailingZeros(stop) >>> 3);
            }
            i += 8;
            if (i >= n) {
                return -1;
            }
        }
    }

    /** The eight bytes at {@code b[i..i+7]}, little-endian. */
    static long word(byte[] b, int i) {
        return UNSAFE != null ? unsafeWord(b, i) : varHandleWord(b, i);
    }

    /** {@link #word} through the byte-array view {@code VarHandle}: any byte order, any JDK. */
    static long varHandleWord(byte[] b, int i) {
        return (long) Longs.LONGS.get(b, i);
    }

    /** {@link #word} through {@code sun.misc.Unsafe}, bounds checked as the VarHandle checks them. */
    static long unsafeWord(byte[] b, int i) {
        java.util.Objects.checkIndex(i, b.length - 7);
        return UNSAFE.getLong(b, BYTE_BASE + i);
    }

    /**
     * {@code sun.misc.Unsafe} where reading a word through it is right and silent: little-endian
     * hardware (x86-64, aarch64 Linux) and JDK 23 or older (24 and later print a warning at its
     * first use, JEP 498); null elsewhere, and {@link #word} uses the {@code VarHandle}. Why at all:
     * in C1's code, which runs the first ~100 ms of a read and the once-per-series paths, a
     * {@code VarHandle} read is a chain of method-handle calls, which the JIT then compiles too
     * (~40 compiles during a 1 GiB read); C1 and C2 both turn {@code Unsafe.getLong} into one load.
     * 1 GiB export, 40 paired runs: wall -12 ms, CPU -21 ms (issue 17).
     */
    static final sun.misc.Unsafe UNSAFE = unsafe();
    private static final long BYTE_BASE = UNSAFE == null ? 0 : UNSAFE.arrayBaseOffset(byte[].class);

    private static sun.misc.Unsafe unsafe() {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN || Runtime.version().feature() > 23) {
            return null;
        }
        try {
            java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // a JDK without it, or a security manager: the VarHandle does the same
        }
    }

    /**
     * High bit set in each byte of {@code w} equal to the byte of {@code pattern} (SWAR
     * haszero). Bytes above the first match may be flagged too, so only the lowest set bit is
     * used: it is exact.
     */
    static long eq(long w, long pattern) {
        long x = w ^ pattern;
        return (x - ONES) & ~x & HIGHS;
    }

    /** High bit set in each byte of {@code w} that is not an ASCII digit (exact per byte). */
    static long nonDigits(long w) {
        long z = ((w & 0xF0F0F0F0F0F0F0F0L) ^ 0x3030303030303030L)
                | (((w + 0x0606060606060606L) & 0xF0F0F0F0F0F0F0F0L) ^ 0x3030303030303030L);
        return (((z & LOW7) + LOW7) | z) & HIGHS;
    }

    /** How many of the first bytes of {@code w} are digits (0..8). */
    static int digitCount(long w) {
        return Long.numberOfTrailingZeros(nonDigits(w)) >>> 3;
    }

    /** The first {@code k} (0..8) bytes of {@code w}, all ASCII digits, as a number (0 for k = 0). */
    static long parseDigits(long w, int k) {
        return parseDigits(w, FIRST_BYTES[k], shift(k));
    }

    /** The shift of {@link #parseDigits(long, long, int)} for {@code k} digits. */
    static int shift(int k) {
        return (8 - k) << 3;
    }

    /**
     * {@link #parseDigits(long, int)} with {@code mask = FIRST_BYTES[k]} and {@code shift =
     * shift(k)} worked out beforehand, for digits whose count is known before the word is read.
     */
    static long parseDigits(long w, long mask, int shift) {
        // digits move to the high end, the bytes after them are masked off (as are borrows from
        // them); without a branch for k = 0, where the shift by 64 is a shift by 0 of nothing
        long x = ((w - 0x3030303030303030L) & mask) << shift;
        x = (x * 10) + (x >>> 8);
        return (((x & 0x000000FF000000FFL) * (100 + (1000000L << 32)))
                + (((x >>> 16) & 0x000000FF000000FFL) * (1 + (10000L << 32)))) >>> 32;
    }
}

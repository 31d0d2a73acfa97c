package io.hbmledger.evidence.msprof;

import static io.hbmledger.evidence.msprof.Swar.FIRST_BYTES;
import static io.hbmledger.evidence.msprof.Swar.HIGHS;
import static io.hbmledger.evidence.msprof.Swar.POW10;
import static io.hbmledger.evidence.msprof.Swar.nonDigits;
import static io.hbmledger.evidence.msprof.Swar.parseDigits;
import static io.hbmledger.evidence.msprof.Swar.shift;
import static io.hbmledger.evidence.msprof.Swar.word;

/**
 * The shape of the last plain row of a series with one amount (npu_module_mem, npu_mem): its
 * bytes, which of them are digits, and where its time, amount and device digits sit. A row
 * whose bytes are the template's, except that digits may be other digits, has the template's
 * cell boundaries, so {@link LaneLoop} reads its numbers at fixed offsets: every load is known
 * before the row is read, instead of waiting for the length of the cell before it (measured:
 * that chain of dependent loads, not the work, made the cell-by-cell parse ~2x slower).
 *
 * <p>Offsets are from the row's start; a row is at most {@link #WORDS} words long.
 */
final class RowTemplate {

    static final int WORDS = 12;

    private static final long LOW_NIBBLES = 0x0F0F0F0F0F0F0F0FL;
    private static final long SIXES = 0x0606060606060606L;

    /**
     * Row length with its line feed, 0 for no template. Per word: the bytes to compare (0x30
     * where a digit is), what of each byte must equal them (0xFF, or 0xF0 where a digit is, so
     * 0x30..0x3F), and 0x10 where a digit is (rules out 0x3A..0x3F).
     */
    int len;
    private int words;
    private final long[] bytes = new long[WORDS];
    private final long[] masks = new long[WORDS];
    private final long[] digits = new long[WORDS];

    // a number as up to two runs of at most 8 digits and a fraction: offset, mask, shift per run
    private final Number ts = new Number();
    final Number amount = new Number();
    /** Bytes of the amount's cell, {@code [amountFrom, amountTo)}; an empty cell has none. */
    int amountFrom;
    int amountTo;
    boolean amountPresent;
    /** The device's digits after the lane (a torch_npu layout), 0 when the lane holds the device. */
    private int deviceOff;
    private int deviceDigits;
    private long deviceMask;
    private int deviceShift;

    /** Digits as written, read at fixed offsets. */
    static final class Number {
        int off1;
        long mask1;
        int shift1;
        int off2;
        long mask2;
        int shift2;
        /** 10 to the number of digits of the second run. */
        long pow2;
        int fracOff;
        long fracMask;
        int fracShift;
        /** Fraction digits read. */
        int frac;

        void set(int off, int intDigits, int fracOff, int fracDigits) {
            int d1 = Math.min(intDigits, 8);
            int d2 = intDigits - d1;
            off1 = off;
            mask1 = FIRST_BYTES[d1];
            shift1 = shift(d1);
            off2 = off + 8;
            mask2 = FIRST_BYTES[d2];
            shift2 = shift(d2);
            pow2 = POW10[d2];
            this.fracOff = fracOff;
            fracMask = FIRST_BYTES[fracDigits];
            fracShift = shift(fracDigits);
            frac = fracDigits;
        }

        /** The integer digits. */
        long whole(byte[] b, int p) {
            return parseDigits(word(b, p + off1), mask1, shift1) * pow2 + parseDigits(word(b, p + off2), mask2, shift2);
        }

        /** The fraction digits as an integer. */
        long fraction(byte[] b, int p) {
            return parseDigits(word(b, p + fracOff), fracMask, fracShift);
        }
    }

    /** A time of {@code intDigits} digits at {@code off}, then a fraction of which 3 digits are read. */
    void time(int off, int intDigits, int fracOff, int fracDigits) {
        ts.set(off, intDigits, fracOff, Math.min(fracDigits, 3));
    }

    /** The amount's digits; {@code present} false for an empty cell. */
    void amount(int off, int intDigits, int fracOff, int fracDigits, int end, boolean present) {
        amount.set(off, intDigits, fracOff, fracDigits);
        amountFrom = off;
        amountTo = end;
        amountPresent = present;
    }

    void device(int off, int count) {
        deviceOff = off;
        deviceDigits = count;
        deviceMask = FIRST_BYTES[count];
        deviceShift = shift(count);
    }

    /** The time's integer part (microseconds). */
    long micros(byte[] b, int p) {
        return ts.whole(b, p);
    }

    /** The time in nanoseconds, from {@code micros}; the fraction's digits after the third are dropped. */
    long nanos(byte[] b, int p, long micros) {
        return micros * 1000 + ts.fraction(b, p) * POW10[3 - ts.frac];
    }

    /** The device after the lane, or {@code same} when the lane holds the device. */
    int device(byte[] b, int p, int same) {
        int read = (int) parseDigits(word(b, p + deviceOff), deviceMask, deviceShift);
        return deviceDigits == 0 ? same : read;
    }

    /** True when the row at {@code p} has this template's shape; {@code p + len} must be in the buffer. */
    boolean fits(byte[] b, int p) {
        long diff = 0;
        for (int j = 0, o = p; j < words; j++, o += 8) {
            long w = word(b, o);
            diff |= ((w ^ bytes[j]) & masks[j]) | (((w & LOW_NIBBLES) + SIXES) & digits[j]);
        }
        return diff == 0;
    }

    /**
     * Makes the plain row {@code b[p..end]} the template (none if it is too long): the first
     * {@code fixed} bytes (the lane) and every non-digit must be equal in a row of the same
     * shape, its other digits may be any digits. The offsets are set before.
     */
    void learn(byte[] b, int p, int end, int fixed) {
        int length = end - p + 1;
        int n = (length + 7) >>> 3;
        if (n > WORDS) {
            len = 0;
            return;
        }
        for (int j = 0; j < n; j++) {
            long w = word(b, p + 8 * j);
            long valid = FIRST_BYTES[Math.min(8, length - 8 * j)];
            long lane = FIRST_BYTES[Math.max(0, Math.min(8, fixed - 8 * j))];
            long d = (~nonDigits(w) & HIGHS & valid & ~lane) >>> 7; // 0x01 in each digit's byte
            long mask = valid & ~(d * 0x0F);
            bytes[j] = w & mask;
            masks[j] = mask;
            digits[j] = d * 0x10;
        }
        words = n;
        len = length;
    }
}

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

    /**
     * Longest row with a template, in words: 64 bytes. The real npu_module_mem rows are 40-50
     * bytes with their line feed; a longer row is read cell by cell.
     */
    static final int WORDS = 8;

    private static final long LOW_NIBBLES = 0x0F0F0F0F0F0F0F0FL;
    private static final long SIXES = 0x0606060606060606L;
    private static final long DIGIT_BITS = 0x4040404040404040L;

    /** Row length with its line feed, 0 for no template. */
    int len;
    /** {@link #learn}'s words, before they go into the fields below. */
    private final long[] bytes = new long[WORDS];
    private final long[] masks = new long[WORDS];
    private final long[] digits = new long[WORDS];
    /** Per word, 0xFF in the bytes of the time's first 8 digits when they are fixed (see {@link #tsHigh}). */
    private final long[] highs = new long[WORDS];
    /**
     * Per word: the bytes to compare (0x30 where a digit is), what of each byte must equal them
     * (0xFF, or 0xF0 where a digit is, so 0x30..0x3F), and 0x40 where a digit is (0x3A..0x3F
     * plus 6 reach it, digits do not; see {@link #differs}); words past the row have a zero mask. In fields, compared with no loop and no
     * array reads (measured: a loop with its array reads was ~20% of the hot loop), and all
     * {@link #WORDS} of them for every row: with a shorter check for short rows, the branch
     * between the two was never taken until the first long row, often after half of a file
     * (devices 10 and up), and that trap threw the hot loop's compiled code away (issue 17).
     */
    private long b0, b1, b2, b3, b4, b5, b6, b7;
    private long k0, k1, k2, k3, k4, k5, k6, k7;
    private long d0, d1, d2, d3, d4, d5, d6, d7;

    // a number as up to two runs of at most 8 digits and a fraction: offset, mask, shift per run
    private final Number ts = new Number();
    final Number amount = new Number();
    /** Bytes of the amount's cell, {@code [amountFrom, amountTo)}; an empty cell has none. */
    int amountFrom;
    int amountTo;
    boolean amountPresent;
    /**
     * A time of more than 8 digits: its first 8 are fixed bytes of the template (they change once
     * in 10^8 us, 100 s, for msprof's 16-digit microseconds: a row where they do is read cell by
     * cell and becomes the next template), so a row that fits has the template row's first 8
     * digits, worth {@link #tsHigh}, and only the digits after them are read. Else 0, and the
     * whole time is read.
     */
    private long tsHigh;
    private boolean highFixed;
    /** The time's digits read in each row: the run after the fixed one, or the only run. */
    private int tsOff;
    private long tsMask;
    private int tsShift;
    /** 10 to the power of the fraction digits the time lacks to nanoseconds: 1 for 3 digits. */
    private long tsFracScale = 1;
    /** The time's fraction digits read in each row ({@link #ts}'s, in fields of their own: one load less per row). */
    private int tsFracOff;
    private long tsFracMask;
    private int tsFracShift;
    /** The device's digits after the lane (a torch_npu layout), 0 when the lane holds the device. */
    private int deviceOff;
    private int deviceDigits;

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
        tsFracScale = POW10[3 - ts.frac];
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
    }

    /** The time's integer part (microseconds). */
    long micros(byte[] b, int p) {
        return tsHigh + parseDigits(word(b, p + tsOff), tsMask, tsShift);
    }

    /** The time in nanoseconds, from {@code micros}; the fraction's digits after the third are dropped. */
    long nanos(byte[] b, int p, long micros) {
        return micros * 1000 + parseDigits(word(b, p + tsFracOff), tsFracMask, tsFracShift) * tsFracScale;
    }

    /**
     * True when the row at {@code p} has this template's shape, its device digits included (they
     * are fixed bytes, see {@link #learn}): its device is the template row's. {@code p + len}
     * must be in the buffer, and {@link #WORDS} words from {@code p} readable.
     */
    boolean fits(byte[] b, int p) {
        return (differs(word(b, p), b0, k0, d0) | differs(word(b, p + 8), b1, k1, d1)
                | differs(word(b, p + 16), b2, k2, d2) | differs(word(b, p + 24), b3, k3, d3)
                | differs(word(b, p + 32), b4, k4, d4) | differs(word(b, p + 40), b5, k5, d5)
                | differs(word(b, p + 48), b6, k6, d6) | differs(word(b, p + 56), b7, k7, d7)) == 0;
    }

    /**
     * Non-zero when word {@code w} differs from the template's in a fixed byte, or holds a non-digit where a digit is.
     * The 6 added to every byte carries into the next byte only from a byte of 0xFA or more: in a
     * digit's place the mask already rejects it, and a fixed byte's carry can only flag the next
     * byte (a row read cell by cell instead), never hide one. One operation less per word than
     * adding 6 to the low nibbles alone (measured with the rest of this change: warm reads ~8% faster).
     */
    private static long differs(long w, long fixed, long mask, long digit) {
        return ((w ^ fixed) & mask) | ((w + SIXES) & digit);
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
        boolean twoRuns = ts.mask2 != 0;
        tsHigh = twoRuns ? parseDigits(word(b, p + ts.off1), ts.mask1, ts.shift1) * ts.pow2 : 0;
        highFixed = twoRuns;
        tsOff = twoRuns ? ts.off2 : ts.off1;
        tsMask = twoRuns ? ts.mask2 : ts.mask1;
        tsShift = twoRuns ? ts.shift2 : ts.shift1;
        tsFracOff = ts.fracOff;
        tsFracMask = ts.fracMask;
        tsFracShift = ts.fracShift;
        for (int j = 0; j < WORDS; j++) {
            long w = j < n ? word(b, p + 8 * j) : 0;
            long valid = j < n ? FIRST_BYTES[Math.min(8, length - 8 * j)] : 0;
            long lane = FIRST_BYTES[Math.max(0, Math.min(8, fixed - 8 * j))];
            long device = bytesOf(8 * j, deviceOff, deviceDigits);
            long high = bytesOf(8 * j, ts.off1, twoRuns ? 8 : 0);
            long d = (~nonDigits(w) & HIGHS & valid & ~lane & ~device & ~high) >>> 7; // 0x01 in each free digit's byte
            long mask = valid & ~(d * 0x0F);
            bytes[j] = w & mask;
            masks[j] = mask;
            digits[j] = d * 0x40;
            highs[j] = high & valid;
        }
        fields();
        len = length;
    }

    /**
     * Takes the row at {@code p} as this template's when it differs from it only in the first 8
     * digits of its time, which then become the template's (and {@link #tsHigh}). They change
     * once per 100 s of a series: in a 1 GiB export ~5,000 times, and reading each such row cell
     * by cell and learning it anew made those two methods hot enough for the optimising compiler,
     * ~55 ms of compiling, late in the read, for rows that a template of the same shape reads.
     * {@code p + len} must be in the buffer, and {@link #WORDS} words from {@code p} readable.
     *
     * @return true when the row fits the template now
     */
    boolean refit(byte[] b, int p) {
        if (len == 0 || !highFixed) {
            return false;
        }
        long diff = 0;
        for (int j = 0; j < WORDS; j++) {
            long high = highs[j];
            // the first digits of the time as free digits: any digit, not the template's
            diff |= differs(word(b, p + 8 * j), bytes[j], masks[j] & ~(high & LOW_NIBBLES), digits[j] | (high & DIGIT_BITS));
        }
        if (diff != 0) {
            return false;
        }
        for (int j = 0; j < WORDS; j++) {
            bytes[j] = (bytes[j] & ~highs[j]) | (word(b, p + 8 * j) & highs[j]);
        }
        tsHigh = parseDigits(word(b, p + ts.off1), ts.mask1, ts.shift1) * ts.pow2;
        fields();
        return true;
    }

    private void fields() {
        b0 = bytes[0]; b1 = bytes[1]; b2 = bytes[2]; b3 = bytes[3]; b4 = bytes[4]; b5 = bytes[5]; b6 = bytes[6]; b7 = bytes[7];
        k0 = masks[0]; k1 = masks[1]; k2 = masks[2]; k3 = masks[3]; k4 = masks[4]; k5 = masks[5]; k6 = masks[6]; k7 = masks[7];
        d0 = digits[0]; d1 = digits[1]; d2 = digits[2]; d3 = digits[3]; d4 = digits[4]; d5 = digits[5]; d6 = digits[6]; d7 = digits[7];
    }

    /**
     * The bytes of the word at row offset {@code at} that lie in the {@code count} bytes from row
     * offset {@code off}. Used for the digits that are fixed bytes of the template: the device's
     * (set by {@link #device}; the row it learns from is on the lane's device, so a row that fits
     * needs no device check) and the first 8 of a long time (see {@link #tsHigh}).
     */
    private static long bytesOf(int at, int off, int count) {
        long all = FIRST_BYTES[count];
        int shift = (off - at) * 8;
        if (count == 0 || shift >= 64 || shift <= -64) {
            return 0;
        }
        return shift >= 0 ? all << shift : all >>> -shift;
    }
}

package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.Quote;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Exact number parsing straight from the bytes of a CSV cell, without making a String on the
 * hot path. Amounts are decimal numbers in a binary unit (KB = KiB, MB = MiB, as the msprof
 * and torch_npu exporters divide by 1024 and 1024^2), so the conversion is exact whenever the
 * written decimal is; otherwise it rounds half up to the nearest byte.
 */
final class Numbers {

    /** Returned by the parsers when the cell is not a number. */
    static final long INVALID = Long.MIN_VALUE;

    /** Returned by {@link #amount} when the cell is a number too large for a byte count. */
    static final long OUT_OF_RANGE = Long.MIN_VALUE + 1;

    /**
     * Longest cell read exactly: 19 digits reach 2^63, the rest leaves room for a sign, a
     * fraction and an exponent. A longer cell cannot be a byte count, and BigDecimal's parse
     * is quadratic in the digits (a 2,000,000-digit cell took 89 s), so it is refused unread.
     */
    static final int MAX_NUMBER_CHARS = 40;

    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    private Numbers() {
    }

    /** True when the cell holds nothing but blanks (TAB, space, CR). */
    static boolean blank(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    /**
     * A decimal amount times {@code unitBytes}, rounded to whole bytes. Surrounding blanks
     * (msprof writes a TAB after timestamps) are ignored.
     *
     * @return bytes, {@link #INVALID} when the cell is not a decimal number, or
     *     {@link #OUT_OF_RANGE} when it is one whose bytes do not fit a long
     */
    static long amount(byte[] b, int from, int to, long unitBytes) {
        while (from < to && isBlank(b[from])) {
            from++;
        }
        while (to > from && isBlank(b[to - 1])) {
            to--;
        }
        if (from == to) {
            return INVALID;
        }
        int i = from;
        boolean negative = false;
        if (b[i] == '-' || b[i] == '+') {
            negative = b[i] == '-';
            i++;
        }
        long mantissa = 0;
        int digits = 0;
        int scale = 0;
        boolean dot = false;
        boolean anyDigit = false;
        for (; i < to; i++) {
            byte c = b[i];
            if (c >= '0' && c <= '9') {
                anyDigit = true;
                if (digits >= 18 || scale >= 18) {
                    return slowAmount(b, from, to, unitBytes);
                }
                mantissa = mantissa * 10 + (c - '0');
                if (mantissa != 0) {
                    digits++;
                }
                if (dot) {
                    scale++;
                }
            } else if (c == '.' && !dot) {
                dot = true;
            } else if (c == 'e' || c == 'E') {
                return slowAmount(b, from, to, unitBytes);
            } else {
                return INVALID;
            }
        }
        if (!anyDigit) {
            return INVALID;
        }
        long hi = Math.multiplyHigh(mantissa, unitBytes);
        long lo = mantissa * unitBytes;
        if (hi != 0 || lo < 0) {
            return slowAmount(b, from, to, unitBytes);
        }
        long div = POW10[scale];
        long q = lo / div;
        long r = lo % div;
        if (r * 2 >= div) {
            q++;
        }
        return negative ? -q : q;
    }

    private static long slowAmount(byte[] b, int from, int to, long unitBytes) {
        int exponent = exponentAt(b, from, to);
        if (exponent == NOT_A_NUMBER) {
            return INVALID;
        }
        // "1e999999999" is short but would expand to a billion digits in setScale
        if (to - from > MAX_NUMBER_CHARS || exponent >= 0 && to - exponent > 4) {
            return OUT_OF_RANGE;
        }
        try {
            BigDecimal v = new BigDecimal(new String(b, from, to - from, StandardCharsets.ISO_8859_1))
                    .multiply(BigDecimal.valueOf(unitBytes)).setScale(0, RoundingMode.HALF_UP);
            return v.longValueExact();
        } catch (NumberFormatException e) {
            return INVALID;
        } catch (ArithmeticException e) {
            return OUT_OF_RANGE;
        }
    }

    private static final int NOT_A_NUMBER = -2;

    /**
     * Where the exponent mark ({@code e} / {@code E}) of a number cell is: its index, -1 when the
     * cell has none, {@link #NOT_A_NUMBER} when a byte is not digit, sign, point or mark.
     */
    private static int exponentAt(byte[] b, int from, int to) {
        int exponent = -1;
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == 'e' || c == 'E') {
                exponent = i;
            } else if ((c < '0' || c > '9') && c != '.' && c != '-' && c != '+') {
                return NOT_A_NUMBER;
            }
        }
        return exponent;
    }

    /**
     * A timestamp written in microseconds with up to three decimals ({@code 1736408883573957.920}),
     * as nanoseconds. Digits beyond the third decimal are dropped. Exponent notation
     * ({@code 1.70234E+15}, from a spreadsheet that re-saved the export) is read too; what it
     * lost is {@link #exponentStepMicros}.
     *
     * @return nanoseconds, or {@link #INVALID}
     */
    static long microsToNanos(byte[] b, int from, int to) {
        while (from < to && isBlank(b[from])) {
            from++;
        }
        while (to > from && isBlank(b[to - 1])) {
            to--;
        }
        if (from == to) {
            return INVALID;
        }
        long whole = 0;
        long frac = 0;
        int fracDigits = 0;
        boolean dot = false;
        int digits = 0;
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c >= '0' && c <= '9') {
                if (dot) {
                    if (fracDigits < 3) {
                        frac = frac * 10 + (c - '0');
                        fracDigits++;
                    }
                } else {
                    if (++digits > 16 || whole > 900_000_000_000_000L) {
                        return INVALID;
                    }
                    whole = whole * 10 + (c - '0');
                }
            } else if (c == '.' && !dot) {
                dot = true;
            } else if ((c == 'e' || c == 'E') && digits > 0) {
                return exponentMicrosToNanos(b, from, to);
            } else {
                return INVALID;
            }
        }
        if (digits == 0) {
            return INVALID;
        }
        while (fracDigits < 3) {
            frac *= 10;
            fracDigits++;
        }
        return whole * 1000 + frac;
    }

    /**
     * A timestamp in exponent notation ({@code 1.70234E+15}), as a spreadsheet writes it after
     * re-saving an export: microseconds to nanoseconds, digits beyond the nanosecond dropped as
     * {@link #microsToNanos} drops them. The precision lost is {@link #exponentStepMicros}.
     *
     * @return nanoseconds, or {@link #INVALID} when the cell is not such a number or out of range
     */
    private static long exponentMicrosToNanos(byte[] b, int from, int to) {
        BigDecimal us = exponentNumber(b, from, to);
        if (us == null || us.signum() < 0) {
            return INVALID;
        }
        try {
            return us.movePointRight(3).setScale(0, RoundingMode.DOWN).longValueExact();
        } catch (ArithmeticException e) {
            return INVALID;
        }
    }

    /**
     * True when a timestamp cell (blanks around it ignored) is a number in exponent notation
     * that {@link #microsToNanos} reads.
     */
    static boolean isExponentTime(byte[] b, int from, int to) {
        return exponentNumber(b, from, to) != null && microsToNanos(b, from, to) != INVALID;
    }

    /**
     * The worth of the last digit written in an exponent-notation cell, in microseconds: what a
     * spreadsheet's rounding left of the time ({@code 1.70234E+15} is known to 1E+10 us, about
     * 2.8 hours). Only for cells {@link #isExponentTime} accepts.
     */
    static BigDecimal exponentStepMicros(byte[] b, int from, int to) {
        BigDecimal us = exponentNumber(b, from, to);
        return us == null ? null : us.ulp();
    }

    /** An exponent-notation number of at most {@link #MAX_NUMBER_CHARS} characters, or null. */
    private static BigDecimal exponentNumber(byte[] b, int from, int to) {
        while (from < to && isBlank(b[from])) {
            from++;
        }
        while (to > from && isBlank(b[to - 1])) {
            to--;
        }
        int exponent = exponentAt(b, from, to);
        // "1E-999999999" is short but its rescaling would build a billion-digit power of ten
        if (exponent < 0 || to - from > MAX_NUMBER_CHARS || to - exponent > 4) {
            return null;
        }
        try {
            BigDecimal v = new BigDecimal(new String(b, from, to - from, StandardCharsets.ISO_8859_1));
            // a timestamp in microseconds has at most 16 integer digits (as microsToNanos reads)
            return v.precision() - v.scale() > 16 ? null : v;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * A device cell: {@code 3}, {@code NPU:3}, {@code npu:3}. {@code host}, empty or anything
     * else gives -1 (the row has no device).
     */
    static int deviceId(byte[] b, int from, int to) {
        while (from < to && isBlank(b[from])) {
            from++;
        }
        while (to > from && isBlank(b[to - 1])) {
            to--;
        }
        if (to - from >= 4 && (b[from] == 'N' || b[from] == 'n') && (b[from + 1] == 'P' || b[from + 1] == 'p')
                && (b[from + 2] == 'U' || b[from + 2] == 'u') && b[from + 3] == ':') {
            from += 4;
        }
        if (from == to || to - from > 6) {
            return -1;
        }
        int id = 0;
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c < '0' || c > '9') {
                return -1;
            }
            id = id * 10 + (c - '0');
        }
        return id;
    }

    private static boolean isBlank(byte c) {
        return c == ' ' || c == '\t' || c == '\r';
    }

    /**
     * What a cell that {@link #amount} refused is, for a warning: the cell quoted (cut, see
     * {@link Quote}) and why, e.g. {@code "'12345...' (2,000,000 bytes) is out of range"}.
     */
    static String refused(byte[] b, int from, int to, long result) {
        while (from < to && isBlank(b[from])) {
            from++;
        }
        while (to > from && isBlank(b[to - 1])) {
            to--;
        }
        String quoted = Quote.of(b, from, to);
        return result == OUT_OF_RANGE
                ? quoted + " is out of range (a byte count has at most 19 digits)"
                : quoted + " is not a number";
    }

    /**
     * True for a cell written as -1 ({@code -1}, {@code -1.0}), the CANN profiling guide's mark
     * for "only frees were seen" in npu_module_mem; any other negative amount is no mark and no
     * amount ({@link #negative}).
     */
    static boolean minusOne(String text) {
        try {
            return new java.math.BigDecimal(text.strip()).compareTo(java.math.BigDecimal.ONE.negate()) == 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The warning for a negative amount other than -1: {@code field 4 '-5.0' is negative ...}. */
    static String negative(String where, String text) {
        return where + " '" + text + "' is negative: no memory amount is, and it is not the -1 that marks \"only frees"
                + " were seen\" (CANN profiling guide); value ignored";
    }

    /** True when the bytes hold a NUL: a zeroed block (killed writer, crashed file system). */
    static boolean holdsNul(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /** Cell text without surrounding blanks or quotes, for messages and {@code text} fields. */
    static String text(byte[] b, int from, int to) {
        while (from < to && isBlank(b[from])) {
            from++;
        }
        while (to > from && isBlank(b[to - 1])) {
            to--;
        }
        if (to - from >= 2 && b[from] == '"' && b[to - 1] == '"') {
            return new String(b, from + 1, to - from - 2, StandardCharsets.UTF_8).replace("\"\"", "\"");
        }
        return new String(b, from, to - from, StandardCharsets.UTF_8);
    }
}

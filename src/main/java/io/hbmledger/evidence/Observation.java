package io.hbmledger.evidence;

import java.util.Objects;

/**
 * One number read from one evidence file, before any attribution.
 *
 * <p>Follows {@code shared/contracts/evidence-v1.md}: a memory amount is {@code bytes} (always
 * converted to bytes, whatever unit the file wrote), anything else is {@code value} (counts,
 * ratios, seconds, percentages); exactly one of the two is set. {@code text} keeps the number
 * exactly as written, with its unit, so a reader can check the conversion. A value the file does
 * not contain is never made into an observation (absent, not 0).
 *
 * @param quantity what the number measures
 * @param bytes amount in bytes, or null when this is a {@code value}
 * @param value dimensionless number, or null when this is a memory amount
 * @param line 1-based text line, or 1-based data row for CSV/SQLite (header excluded)
 * @param text the value as written in the file, unit included
 * @param context device, process or series the source names next to the number; never null
 */
public record Observation(Quantity quantity, Long bytes, Double value, int line, String text, Context context) {

    public Observation {
        Objects.requireNonNull(quantity, "quantity");
        Objects.requireNonNull(context, "context");
        if ((bytes == null) == (value == null)) {
            throw new IllegalArgumentException(
                    "observation " + quantity + " needs exactly one of bytes or value");
        }
    }

    /** A memory amount, already converted to bytes, without context. */
    public static Observation bytes(Quantity quantity, long bytes, int line, String text) {
        return new Observation(quantity, bytes, null, line, text, Context.NONE);
    }

    /** A count, ratio, duration or percentage, without context. */
    public static Observation value(Quantity quantity, double value, int line, String text) {
        return new Observation(quantity, null, value, line, text, Context.NONE);
    }

    /** The same number in the given context. */
    public Observation in(Context c) {
        return new Observation(quantity, bytes, value, line, text, c);
    }

    public boolean isBytes() {
        return bytes != null;
    }
}

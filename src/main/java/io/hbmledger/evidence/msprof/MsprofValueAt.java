package io.hbmledger.evidence.msprof;

/**
 * The value of a series at a named moment: the last sample taken at or before it.
 *
 * @param moment the name the caller gave the instant ({@code ready}, {@code peak}, ...)
 * @param instantUs the instant asked for, microseconds since the Unix epoch
 * @param bytes the sample's value in bytes
 * @param text the sample as written in the file
 * @param timestampUs when that sample was taken, microseconds since the epoch
 * @param file the file the sample came from
 * @param row its data row (CSV, header excluded) or rowid (SQLite)
 */
public record MsprofValueAt(String moment, long instantUs, long bytes, String text, long timestampUs,
                            String file, long row) {

    /** How long before the instant the sample was taken, in microseconds. */
    public long ageUs() {
        return instantUs - timestampUs;
    }
}

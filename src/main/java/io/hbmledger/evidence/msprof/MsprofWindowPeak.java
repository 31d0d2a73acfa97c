package io.hbmledger.evidence.msprof;

/**
 * The maximum of a series over the samples taken at or after a named instant (the window
 * start, e.g. {@code ready}): the peak under load when start-up (model loading, graph capture,
 * the profile run) went higher than anything after it. On a tie the first such sample in file
 * order is kept, as for the whole-run maximum.
 *
 * @param from the moment that starts the window
 * @param fromUs its instant, microseconds since the Unix epoch
 * @param bytes the maximum
 * @param text the maximum as written
 * @param timestampUs when it was sampled
 * @param file the file holding it
 * @param row its data row (CSV, header excluded) or rowid (SQLite)
 */
public record MsprofWindowPeak(String from, long fromUs, long bytes, String text, long timestampUs, String file,
                               long row) {
}

package io.hbmledger.evidence.msprof;

/**
 * Running summary of one series (one quantity, device and component) in one pass: maximum
 * with its row and time, the maximum over the samples at or after a window start (the peak
 * after ready, when start-up went higher) with its row and time, sample count, time span, the largest gap between consecutive samples
 * and, for each instant asked for, the last sample at or before it. Constant memory per series.
 * Mutable and confined to one thread; partial results of file chunks are merged in file order.
 */
final class SeriesStats {

    static final long NONE = Long.MIN_VALUE;

    long peak = NONE;
    /** The maximum's cell as written. */
    private final Cell peakCell = new Cell();
    long peakRow;
    long peakTsNs = NONE;
    long samples;
    long minTsNs = Long.MAX_VALUE;
    long maxTsNs = Long.MIN_VALUE;
    /** Timestamp of the first and the last sample in file order (for gaps across chunks). */
    long firstInOrderTsNs = NONE;
    long lastInOrderTsNs = NONE;
    long maxGapNs;
    /** Maximum over samples at or after {@link #windowFromNs}, with its row and time; NONE when none. */
    long winPeak = NONE;
    private final Cell winCell = new Cell();
    long winRow;
    long winTsNs = NONE;
    /** Start of the window, {@link Instants#NO_WINDOW} for none; untimed samples (NONE) are never in it. */
    final long windowFromNs;
    /** The instants this series is read at (names and times); see {@link Instants}. */
    final Instants instants;
    final long[] instantsNs;
    final long[] atTsNs;
    final long[] atBytes;
    final long[] atRow;
    /** Each instant's cell as written. */
    private final Cell[] atCell;
    /**
     * An instant's value that {@link #addValueFast} took, its cell still in the reader's buffer
     * at {@code [atFrom, atTo)} of {@link #atBuf} (-1: none): the hot loop takes most samples
     * before an instant, each replacing the one before, so the cell is copied once per call of
     * the loop ({@link #keepInstantCells}), not once per sample.
     */
    private final int[] atFrom;
    private final int[] atTo;
    private byte[] atBuf;

    SeriesStats(Instants instants) {
        this.instants = instants;
        this.instantsNs = instants.ns;
        this.windowFromNs = instants.windowFromNs;
        int n = instantsNs.length;
        atTsNs = new long[n];
        atBytes = new long[n];
        atRow = new long[n];
        atCell = new Cell[n];
        for (int i = 0; i < n; i++) {
            atCell[i] = new Cell();
        }
        java.util.Arrays.fill(atTsNs, NONE);
        atFrom = new int[n];
        atTo = new int[n];
        java.util.Arrays.fill(atFrom, -1);
    }

    /**
     * Adds one sample. {@code text} is only asked for when the sample becomes the maximum or
     * an instant's value, so the hot path makes no String.
     */
    void add(long bytes, long tsNs, long row, TextSource text) {
        samples++;
        if (bytes > peak) {
            peak = bytes;
            peakCell.set(text.text());
            peakRow = row;
            peakTsNs = tsNs;
        }
        if (tsNs >= windowFromNs && bytes > winPeak) {
            winPeak = bytes;
            winCell.set(text.text());
            winRow = row;
            winTsNs = tsNs;
        }
        if (tsNs != NONE) {
            timed(tsNs);
            for (int i = 0; i < instantsNs.length; i++) {
                if (tsNs <= instantsNs[i] && tsNs >= atTsNs[i]) {
                    atTsNs[i] = tsNs;
                    atBytes[i] = bytes;
                    atRow[i] = row;
                    atCell[i].set(text.text());
                }
            }
        }
    }

    /** Folds in the stats of the part of the file that follows this one; its rows start at rowOffset+1. */
    void mergeFollowing(SeriesStats next, long rowOffset) {
        if (next.peak > peak) {
            peak = next.peak;
            peakCell.set(next.peakText());
            peakRow = next.peakRow + rowOffset;
            peakTsNs = next.peakTsNs;
        }
        if (next.winPeak > winPeak) {
            // strictly greater: on a tie the earlier part's sample stays, as in one sequential read
            winPeak = next.winPeak;
            winCell.set(next.winText());
            winRow = next.winRow + rowOffset;
            winTsNs = next.winTsNs;
        }
        samples += next.samples;
        minTsNs = Math.min(minTsNs, next.minTsNs);
        maxTsNs = Math.max(maxTsNs, next.maxTsNs);
        maxGapNs = Math.max(maxGapNs, next.maxGapNs);
        if (next.firstInOrderTsNs != NONE) {
            if (firstInOrderTsNs == NONE) {
                firstInOrderTsNs = next.firstInOrderTsNs;
            } else {
                maxGapNs = Math.max(maxGapNs, next.firstInOrderTsNs - lastInOrderTsNs);
            }
            lastInOrderTsNs = next.lastInOrderTsNs;
        }
        for (int i = 0; i < instantsNs.length; i++) {
            if (next.atTsNs[i] != NONE && next.atTsNs[i] >= atTsNs[i]) {
                atTsNs[i] = next.atTsNs[i];
                atBytes[i] = next.atBytes[i];
                atRow[i] = next.atRow[i] + rowOffset;
                atCell[i].set(next.atText(i));
            }
        }
    }

    /**
     * Adds one clean sample whose text is the ASCII cell {@code buf[from, to)} without making a
     * String: the bytes of a new maximum or of an instant's value are kept and made text only
     * when asked. Returns true (kept so callers may still route a sample to {@link #add}).
     * Small on purpose, the rare work in calls: the JIT inlines it into the readers' hot loop
     * only while its compiled code is small.
     */
    boolean addFast(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        samples++;
        offer(bytes, tsNs, row, buf, from, to);
        timed(tsNs);
        if (instantsNs.length != 0) {
            instantsLater(bytes, tsNs, row, buf, from, to);
            keepInstantCells();
        }
        return true;
    }

    /**
     * {@link #addFast} but for the times and the count, which the caller adds for a run of
     * samples with {@link #addTimes}: the reader's hot loop keeps them in registers. The cells
     * of instants' values stay in {@code buf} until {@link #keepInstantCells}, which the caller
     * runs before it changes the buffer's bytes.
     */
    void addValueFast(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        offer(bytes, tsNs, row, buf, from, to);
        if (instantsNs.length != 0) {
            instantsLater(bytes, tsNs, row, buf, from, to);
        }
    }

    private void instantsLater(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        for (int i = 0; i < instantsNs.length; i++) {
            if (tsNs <= instantsNs[i] && tsNs >= atTsNs[i]) {
                atTsNs[i] = tsNs;
                atBytes[i] = bytes;
                atRow[i] = row;
                atFrom[i] = from;
                atTo[i] = to;
                atBuf = buf;
            }
        }
    }

    /** Copies the cells that {@link #addValueFast} left in the reader's buffer for instants' values. */
    void keepInstantCells() {
        if (atBuf == null) {
            return;
        }
        for (int i = 0; i < atFrom.length; i++) {
            if (atFrom[i] >= 0) {
                atCell[i].set(atBuf, atFrom[i], atTo[i]);
                atFrom[i] = -1;
            }
        }
        atBuf = null;
    }

    /**
     * Adds {@code count} timed samples whose values went through {@link #addValueFast}, in file
     * order from {@code firstTsNs} to {@code lastTsNs}, after this series' samples so far: as
     * many calls of {@link #timed} would.
     *
     * @param maxGapNs the largest gap between consecutive ones, the first one's from the last
     *     sample before them included
     */
    void addTimes(long count, long firstTsNs, long lastTsNs, long minNs, long maxNs, long maxGapNs) {
        samples += count;
        minTsNs = Math.min(minTsNs, minNs);
        maxTsNs = Math.max(maxTsNs, maxNs);
        if (firstInOrderTsNs == NONE) {
            firstInOrderTsNs = firstTsNs;
        }
        this.maxGapNs = Math.max(this.maxGapNs, maxGapNs);
        lastInOrderTsNs = lastTsNs;
    }

    /**
     * A sample that may be a new maximum or window maximum: one branch, in one method that both
     * fast paths call. The first sample of every series comes through {@link #addFast} (the row
     * that starts a series is not the hot loop's) and takes this branch, so the branch's profile,
     * which the JIT reads where it inlines this method, never says "never taken". With a test of
     * its own in {@link #addValueFast}, the hot loop's profile often had no new maximum in it (a
     * module at 0.0 for its first hundred thousand rows), the JIT compiled the test as never
     * true, and the first series that grew threw the loop's compiled code away: then ~0.3 s of a
     * 1 GiB read ran in the profiling tier until it was compiled again (issue 17, seen in
     * -XX:+LogCompilation as an unstable_if trap at addValueFast).
     */
    private void offer(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        if (bytes > peak | (tsNs >= windowFromNs & bytes > winPeak)) {
            raise(bytes, tsNs, row, buf, from, to);
        }
    }

    private void raise(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        if (bytes > peak) {
            peakFast(bytes, tsNs, row, buf, from, to);
        }
        if (tsNs >= windowFromNs && bytes > winPeak) {
            windowPeakFast(bytes, tsNs, row, buf, from, to);
        }
    }

    private void peakFast(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        peakCell.set(buf, from, to);
        peak = bytes;
        peakRow = row;
        peakTsNs = tsNs;
    }

    private void windowPeakFast(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        winCell.set(buf, from, to);
        winPeak = bytes;
        winRow = row;
        winTsNs = tsNs;
    }

    /** The value at instant {@code i} as written, or null when no sample was at or before it. */
    String atText(int i) {
        return atCell[i].text();
    }

    private void timed(long tsNs) {
        // min and max as intrinsics (conditional moves): a plain branch here is one the JIT
        // compiles as never taken until the first time a sample goes back in time (a new
        // component in a file grouped by component), and then recompiles the whole reader
        minTsNs = Math.min(minTsNs, tsNs);
        maxTsNs = Math.max(maxTsNs, tsNs);
        if (firstInOrderTsNs == NONE) {
            firstInOrderTsNs = tsNs;
        } else {
            maxGapNs = Math.max(maxGapNs, tsNs - lastInOrderTsNs);
        }
        lastInOrderTsNs = tsNs;
    }

    /** The maximum as written. */
    String peakText() {
        return peakCell.text();
    }

    /** The window maximum as written, or null when no sample fell in the window. */
    String winText() {
        return winCell.text();
    }

    /**
     * A cell as written. The fast path hands over the ASCII bytes of the row's buffer: they are
     * copied (the buffer is reused) and made a String only when asked, so a new maximum or an
     * instant's value costs no String on the hot path.
     */
    private static final class Cell {
        private String text;
        private byte[] raw;
        private int rawLen = -1;

        void set(String t) {
            text = t;
            rawLen = -1;
        }

        void set(byte[] buf, int from, int to) {
            int len = to - from;
            if (raw == null || raw.length < len) {
                raw = new byte[Math.max(32, len)];
            }
            System.arraycopy(buf, from, raw, 0, len);
            rawLen = len;
            text = null;
        }

        /** The text, or null when nothing was set. */
        String text() {
            if (text == null && rawLen >= 0) {
                text = new String(raw, 0, rawLen, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            return text;
        }
    }

    /** Lazily made text of the current cell. */
    @FunctionalInterface
    interface TextSource {
        String text();
    }
}

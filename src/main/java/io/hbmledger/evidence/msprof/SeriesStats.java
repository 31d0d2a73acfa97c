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
    String peakText;
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
    String winText;
    long winRow;
    long winTsNs = NONE;
    private byte[] winRaw;
    private int winRawLen;
    /** Start of the window, {@link Instants#NO_WINDOW} for none; untimed samples (NONE) are never in it. */
    final long windowFromNs;
    /** The instants this series is read at (names and times); see {@link Instants}. */
    final Instants instants;
    final long[] instantsNs;
    final long[] atTsNs;
    final long[] atBytes;
    final long[] atRow;
    final String[] atText;
    /** Bytes of each instant's cell when it came from the fast path (text made when asked); -1 = use atText. */
    private final byte[][] atRaw;
    private final int[] atRawLen;

    SeriesStats(Instants instants) {
        this.instants = instants;
        this.instantsNs = instants.ns;
        this.windowFromNs = instants.windowFromNs;
        int n = instantsNs.length;
        atTsNs = new long[n];
        atBytes = new long[n];
        atRow = new long[n];
        atText = new String[n];
        atRaw = new byte[n][];
        atRawLen = new int[n];
        java.util.Arrays.fill(atRawLen, -1);
        java.util.Arrays.fill(atTsNs, NONE);
    }

    /**
     * Adds one sample. {@code text} is only asked for when the sample becomes the maximum or
     * an instant's value, so the hot path makes no String.
     */
    void add(long bytes, long tsNs, long row, TextSource text) {
        samples++;
        if (bytes > peak) {
            peak = bytes;
            peakText = text.text();
            peakRaw = null;
            peakRow = row;
            peakTsNs = tsNs;
        }
        if (tsNs >= windowFromNs && bytes > winPeak) {
            winPeak = bytes;
            winText = text.text();
            winRaw = null;
            winRow = row;
            winTsNs = tsNs;
        }
        if (tsNs != NONE) {
            if (tsNs < minTsNs) {
                minTsNs = tsNs;
            }
            if (tsNs > maxTsNs) {
                maxTsNs = tsNs;
            }
            if (firstInOrderTsNs == NONE) {
                firstInOrderTsNs = tsNs;
            } else if (tsNs - lastInOrderTsNs > maxGapNs) {
                maxGapNs = tsNs - lastInOrderTsNs;
            }
            lastInOrderTsNs = tsNs;
            for (int i = 0; i < instantsNs.length; i++) {
                if (tsNs <= instantsNs[i] && tsNs >= atTsNs[i]) {
                    atTsNs[i] = tsNs;
                    atBytes[i] = bytes;
                    atRow[i] = row;
                    atText[i] = text.text();
                    atRawLen[i] = -1;
                }
            }
        }
    }

    /** Folds in the stats of the part of the file that follows this one; its rows start at rowOffset+1. */
    void mergeFollowing(SeriesStats next, long rowOffset) {
        if (next.peak > peak) {
            peak = next.peak;
            peakText = next.peakText();
            peakRaw = null;
            peakRow = next.peakRow + rowOffset;
            peakTsNs = next.peakTsNs;
        }
        if (next.winPeak > winPeak) {
            // strictly greater: on a tie the earlier part's sample stays, as in one sequential read
            winPeak = next.winPeak;
            winText = next.winText();
            winRaw = null;
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
                atText[i] = next.atText(i);
                atRawLen[i] = -1;
            }
        }
    }

    /** The peak cell's bytes when it came from the fast path (no String made per new maximum). */
    private byte[] peakRaw;
    private int peakRawLen;

    /**
     * Adds one clean sample whose text is the ASCII cell {@code buf[from, to)} without making a
     * String: the bytes of a new maximum or of an instant's value are kept and made text only
     * when asked. Returns true (kept so callers may still route a sample to {@link #add}).
     */
    boolean addFast(long bytes, long tsNs, long row, byte[] buf, int from, int to) {
        samples++;
        if (bytes > peak) {
            int len = to - from;
            if (peakRaw == null || peakRaw.length < len) {
                peakRaw = new byte[Math.max(32, len)];
            }
            System.arraycopy(buf, from, peakRaw, 0, len);
            peakRawLen = len;
            peak = bytes;
            peakText = null;
            peakRow = row;
            peakTsNs = tsNs;
        }
        // the window test first: before the window (or with none, windowFromNs = Long.MAX_VALUE)
        // a sample costs this one compare; inside it a second, almost always false, one
        if (tsNs >= windowFromNs && bytes > winPeak) {
            int len = to - from;
            if (winRaw == null || winRaw.length < len) {
                winRaw = new byte[Math.max(32, len)];
            }
            System.arraycopy(buf, from, winRaw, 0, len);
            winRawLen = len;
            winPeak = bytes;
            winText = null;
            winRow = row;
            winTsNs = tsNs;
        }
        timed(tsNs);
        for (int i = 0; i < instantsNs.length; i++) {
            if (tsNs <= instantsNs[i] && tsNs >= atTsNs[i]) {
                atTsNs[i] = tsNs;
                atBytes[i] = bytes;
                atRow[i] = row;
                int len = to - from;
                if (atRaw[i] == null || atRaw[i].length < len) {
                    atRaw[i] = new byte[Math.max(32, len)];
                }
                System.arraycopy(buf, from, atRaw[i], 0, len);
                atRawLen[i] = len;
                atText[i] = null;
            }
        }
        return true;
    }

    /** The value at instant {@code i} as written, or null when no sample was at or before it. */
    String atText(int i) {
        if (atText[i] == null && atRawLen[i] >= 0) {
            atText[i] = new String(atRaw[i], 0, atRawLen[i], java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        return atText[i];
    }

    private void timed(long tsNs) {
        if (tsNs < minTsNs) {
            minTsNs = tsNs;
        }
        if (tsNs > maxTsNs) {
            maxTsNs = tsNs;
        }
        if (firstInOrderTsNs == NONE) {
            firstInOrderTsNs = tsNs;
        } else if (tsNs - lastInOrderTsNs > maxGapNs) {
            maxGapNs = tsNs - lastInOrderTsNs;
        }
        lastInOrderTsNs = tsNs;
    }

    /** The maximum as written. */
    String peakText() {
        if (peakText == null && peakRaw != null) {
            peakText = new String(peakRaw, 0, peakRawLen, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        return peakText;
    }

    /** The window maximum as written, or null when no sample fell in the window. */
    String winText() {
        if (winText == null && winRaw != null) {
            winText = new String(winRaw, 0, winRawLen, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        return winText;
    }

    /** Lazily made text of the current cell. */
    @FunctionalInterface
    interface TextSource {
        String text();
    }
}

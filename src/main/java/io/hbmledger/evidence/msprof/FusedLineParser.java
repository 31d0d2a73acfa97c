package io.hbmledger.evidence.msprof;

import static io.hbmledger.evidence.msprof.Swar.COMMAS;
import static io.hbmledger.evidence.msprof.Swar.NEWLINES;
import static io.hbmledger.evidence.msprof.Swar.POW10;
import static io.hbmledger.evidence.msprof.Swar.digitCount;
import static io.hbmledger.evidence.msprof.Swar.eq;
import static io.hbmledger.evidence.msprof.Swar.parseDigits;
import static io.hbmledger.evidence.msprof.Swar.word;

/**
 * The fast path for the sampled tables (npu_module_mem, npu_mem, memory_record): reads one
 * line cell by cell and parses each number while it walks the bytes, so every byte is looked
 * at once. It accepts only clean lines (plain unsigned decimals, known device forms, no
 * quotes, all fields present); anything else returns {@link #FALLBACK} and the line goes
 * through the general tokenizer and {@link CsvRowHandler}, which owns every warning and rule.
 * Both paths give the same result for a clean line (checked by a test on the real files).
 */
final class FusedLineParser {

    static final int NEED_MORE = -1;
    static final int FALLBACK = -2;

    private static final byte SKIP = LaneLoop.SKIP;
    private static final byte DEVICE = LaneLoop.DEVICE;
    private static final byte GROUP = 2;
    private static final byte TS = LaneLoop.TS;
    private static final byte VALUE0 = LaneLoop.VALUE0; // VALUE0 + k for the k-th value column

    private final byte[] kinds;
    private final int fieldCount;
    private final long[] units;
    private final int valueCount;
    private final CsvRowHandler handler;

    /**
     * Consecutive rows mostly repeat the cells before the first amount or time ({@code 0,SLOG,}:
     * the lane, see {@link LaneLoop}): when a row starts with the lane's bytes, device and group
     * are the lane row's and parsing starts at column {@link #laneCol}. Only for layouts whose
     * columns before it are device, group or skipped ones, the group among them.
     */
    private final boolean laneAllowed;
    private final int laneCol;
    private final LaneLoop lane;
    private int laneDevice;
    private int laneGroupOff;
    private int laneGroupLen;

    // per-line results
    private final long[] values;
    private final int[] valueFrom;
    private final int[] valueTo;

    static FusedLineParser forLayout(CsvLayout layout, CsvRowHandler handler) {
        MsprofTable t = layout.table();
        if (t != MsprofTable.NPU_MEM && t != MsprofTable.NPU_MODULE_MEM && t != MsprofTable.MEMORY_RECORD) {
            return null;
        }
        if (!handler.missingUnits().isEmpty() || layout.fieldCount() > 64) {
            return null;
        }
        return new FusedLineParser(layout, handler);
    }

    private FusedLineParser(CsvLayout layout, CsvRowHandler handler) {
        this.handler = handler;
        this.fieldCount = layout.fieldCount();
        this.kinds = new byte[fieldCount];
        int dev = layout.deviceColumn();
        if (dev >= 0) {
            kinds[dev] = DEVICE;
        }
        int[] cols = handler.valueColumns();
        this.valueCount = cols.length;
        this.units = handler.valueUnits();
        for (int k = 0; k < cols.length; k++) {
            if (cols[k] >= 0) {
                kinds[cols[k]] = (byte) (VALUE0 + k);
            }
        }
        kinds[handler.groupColumn()] = GROUP;
        kinds[handler.timestampColumn()] = TS;
        int firstData = fieldCount;
        for (int c = fieldCount - 1; c >= 0; c--) {
            if (kinds[c] == TS || kinds[c] >= VALUE0) {
                firstData = c;
            }
        }
        int groupCol = handler.groupColumn();
        this.laneCol = 1 + Math.max(groupCol, dev < firstData ? dev : -1);
        this.laneAllowed = groupCol < firstData;
        this.lane = new LaneLoop(java.util.Arrays.copyOfRange(kinds, Math.min(laneCol, fieldCount), fieldCount),
                units);
        values = new long[valueCount];
        valueFrom = new int[valueCount];
        valueTo = new int[valueCount];
    }

    /** Columns in the header. */
    int fieldCount() {
        return fieldCount;
    }

    /** What column {@code col} holds for the fast path: SKIP, DEVICE, GROUP, TS or VALUE0 + k. */
    byte kind(int col) {
        return kinds[col];
    }

    /** The first column after the lane (see {@link LaneLoop}). */
    int laneColumn() {
        return laneCol;
    }

    /** "NPU:" as a little-endian int. */
    private static final long NPU_COLON = 0x3A55504EL;

    /** Bytes a line parse may read past the end of the data: the read buffer keeps this much slack. */
    static final int SLACK = 64;

    /**
     * Parses the line starting at {@code p}, eight bytes at a time (SWAR): delimiters are
     * found with a few bit operations per word and numbers are parsed from whole words. It may
     * read up to {@link #SLACK} bytes past {@code n} (the caller's buffer has them) but no
     * result depends on those bytes: any field whose end lies at or past {@code n} gives
     * {@link #NEED_MORE}.
     *
     * @return the start of the next line, {@link #NEED_MORE} when the buffer ends before the
     *     line does, or {@link #FALLBACK} when the line needs the general path
     */
    int line(byte[] b, int p, int n, long row) {
        int device = -1;
        long ts = 0;
        int groupFrom = 0;
        int groupTo = 0;
        for (int k = 0; k < valueCount; k++) {
            values[k] = Numbers.INVALID;
        }
        int i = p;
        int col = 0;
        int laneEnd = -1;
        boolean laned = false;
        int len = lane.laneLength();
        if (len > 0 && p + len < n && lane.matches(b, p)) {
            i = p + len;
            col = laneCol;
            device = laneDevice;
            groupFrom = p + laneGroupOff;
            groupTo = groupFrom + laneGroupLen;
            laned = true;
        }
        while (true) {
            if (i >= n) {
                return NEED_MORE;
            }
            byte kind = col < fieldCount ? kinds[col] : SKIP;
            switch (kind) {
                case SKIP -> {
                    i = Swar.cellEnd(b, i, n);
                    if (i < 0 || i >= n) {
                        return NEED_MORE;
                    }
                    if (b[i] == '"' || b[i] == 0) {
                        return FALLBACK; // a quoted cell, or a NUL byte: the general path ignores such a row
                    }
                }
                case DEVICE -> {
                    long w = word(b, i);
                    if ((w & 0xFFFFFFFFL) == NPU_COLON) {
                        i += 4;
                        w = word(b, i);
                    }
                    int k = digitCount(w);
                    if (i + k >= n) {
                        return NEED_MORE;
                    }
                    if (k == 0 || k > 6) {
                        return FALLBACK;
                    }
                    device = (int) parseDigits(w, k);
                    i += k;
                    if (b[i] == '\r') {
                        i++;
                    }
                }
                case GROUP -> {
                    groupFrom = i;
                    while (true) {
                        long w = word(b, i);
                        long m = eq(w, COMMAS) | eq(w, NEWLINES);
                        if (m != 0) {
                            i += Long.numberOfTrailingZeros(m) >>> 3;
                            break;
                        }
                        i += 8;
                        if (i >= n) {
                            return NEED_MORE;
                        }
                    }
                    if (i >= n) {
                        return NEED_MORE;
                    }
                    groupTo = i;
                    if (groupTo == groupFrom) {
                        return FALLBACK;
                    }
                }
                case TS -> {
                    long w = word(b, i);
                    long whole;
                    int k = digitCount(w);
                    if (k == 8) {
                        long w2 = word(b, i + 8);
                        int k2 = digitCount(w2);
                        whole = parseDigits(w, 8) * POW10[k2] + parseDigits(w2, k2);
                        i += 8 + k2;
                        if (k2 == 8 && i < n && (b[i] - '0' & 0xFF) < 10) {
                            return FALLBACK; // more than 16 digits
                        }
                    } else if (k > 0) {
                        whole = parseDigits(w, k);
                        i += k;
                    } else {
                        return i >= n ? NEED_MORE : FALLBACK;
                    }
                    if (i >= n) {
                        return NEED_MORE;
                    }
                    long frac = 0;
                    if (b[i] == '.') {
                        i++;
                        long w3 = word(b, i);
                        int f = digitCount(w3);
                        int used = Math.min(f, 3);
                        frac = parseDigits(w3, used) * POW10[3 - used];
                        i += f;
                        if (f == 8) {
                            // very long fraction: digits after the third are dropped
                            while (i < n && (b[i] - '0' & 0xFF) < 10) {
                                i++;
                            }
                        }
                    }
                    while (i < n && (b[i] == '\t' || b[i] == ' ' || b[i] == '\r')) {
                        i++;
                    }
                    if (i >= n) {
                        return NEED_MORE;
                    }
                    if (whole > Long.MAX_VALUE / 1000 - 1000) {
                        return FALLBACK;
                    }
                    ts = whole * 1000 + frac;
                }
                default -> {
                    int k = kind - VALUE0;
                    int start = i;
                    long w = word(b, i);
                    int d = digitCount(w);
                    long m = parseDigits(w, d);
                    i += d;
                    int digits = d;
                    int scale = 0;
                    if (d == 8) {
                        // a long integer part: the rest byte by byte
                        while (i < n) {
                            int c = b[i] - '0';
                            if (c < 0 || c > 9) {
                                break;
                            }
                            m = m * 10 + c;
                            digits++;
                            i++;
                        }
                    }
                    if (i >= n) {
                        return NEED_MORE;
                    }
                    boolean dot = b[i] == '.';
                    if (dot) {
                        i++;
                        long w2 = word(b, i);
                        int f = digitCount(w2);
                        m = m * POW10[f] + parseDigits(w2, f);
                        digits += f;
                        scale = f;
                        i += f;
                        if (f == 8) {
                            while (i < n) {
                                int c = b[i] - '0';
                                if (c < 0 || c > 9) {
                                    break;
                                }
                                m = m * 10 + c;
                                digits++;
                                scale++;
                                i++;
                            }
                        }
                    }
                    int end = i;
                    if (i < n && b[i] == '\r') {
                        i++;
                    }
                    if (i >= n) {
                        return NEED_MORE;
                    }
                    if (digits == 0) {
                        if (!dot && (b[i] == ',' || b[i] == '\n')) {
                            break; // empty cell: absent
                        }
                        return FALLBACK;
                    }
                    if (digits > 17 || scale > 12) {
                        return FALLBACK;
                    }
                    valueFrom[k] = start;
                    valueTo[k] = end;
                    if (m == 0) {
                        values[k] = 0;
                        break;
                    }
                    long unit = units[k];
                    long hi = Math.multiplyHigh(m, unit);
                    long lo = m * unit;
                    if (hi != 0 || lo < 0) {
                        return FALLBACK;
                    }
                    if (scale == 0) {
                        values[k] = lo;
                        break;
                    }
                    long div = POW10[scale];
                    long q = lo / div;
                    if ((lo - q * div) * 2 >= div) {
                        q++;
                    }
                    values[k] = q;
                }
            }
            byte c = b[i];
            if (c == ',') {
                col++;
                i++;
                if (col == laneCol) {
                    laneEnd = i;
                }
            } else if (c == '\n') {
                if (col + 1 < fieldCount) {
                    return FALLBACK;
                }
                SeriesStats[] stats = series(b, groupFrom, groupTo, device, row);
                if (stats == FALLBACK_STATS) {
                    return FALLBACK;
                }
                if (stats != null) {
                    handler.fused(stats, b, ts, values, valueFrom, valueTo, row);
                }
                if (laned) {
                    lane.follow(stats, device);
                } else {
                    remember(b, p, laneEnd, device, groupFrom, groupTo, stats);
                }
                return i + 1;
            } else {
                return FALLBACK;
            }
        }
    }

    /** Makes the cells of the row at {@code p} before {@code laneEnd} the lane (see {@link LaneLoop}). */
    private void remember(byte[] b, int p, int laneEnd, int device, int groupFrom, int groupTo,
                          SeriesStats[] stats) {
        if (!laneAllowed || laneEnd < 0) {
            lane.clear();
            return;
        }
        laneDevice = device;
        laneGroupOff = groupFrom - p;
        laneGroupLen = groupTo - groupFrom;
        lane.set(b, p, laneEnd - p, stats, device);
    }

    /**
     * Reads the rows from {@code p} on that continue the last row's lane in the hot loop
     * ({@link LaneLoop#rows}); {@link #laneRows()} tells how many.
     *
     * @return the start of the first row left for {@link #line}
     */
    int laneRows(byte[] b, int p, int n, long row) {
        return lane.rows(b, p, n, row);
    }

    int laneRows() {
        return lane.count();
    }

    /** True when the last {@link #laneRows(byte[], int, int, long)} stopped where the next row may pass the buffer's end. */
    boolean laneNeedsMore() {
        return lane.needMore();
    }

    // ---- series of a group cell and device, interned by the cell's first 16 bytes as two words

    private static final SeriesStats[] FALLBACK_STATS = new SeriesStats[0];
    private static final int SLOTS = 1024;
    private static final int MAX_ENTRIES = SLOTS / 2;
    private final long[] slotW0 = new long[SLOTS];
    private final long[] slotW1 = new long[SLOTS];
    /** (device << 8 | length) + 1 of the entry in each slot; 0 = empty. */
    private final long[] slotKey = new long[SLOTS];
    private final SeriesStats[][] slotStats = new SeriesStats[SLOTS][];
    private int entries;
    private int lastSlot = -1;

    /**
     * The stats of the row's group and device: from the table when this (group cell, device)
     * was seen before, else checked and resolved by the handler (which may warn and give null:
     * such rows are not interned, so the warning repeats per row as on the general path).
     * Group cells with quotes or blanks, or longer than 16 bytes, take the general path.
     */
    private SeriesStats[] series(byte[] b, int from, int to, int device, long row) {
        int len = to - from;
        if (len > 16) {
            return FALLBACK_STATS;
        }
        long w0 = word(b, from);
        long w1 = 0;
        if (len < 8) {
            w0 &= (1L << (len << 3)) - 1;
        } else if (len > 8) {
            w1 = word(b, from + 8);
            if (len < 16) {
                w1 &= (1L << ((len - 8) << 3)) - 1;
            }
        }
        long key = ((long) device << 8 | len) + 1;
        int last = lastSlot;
        if (last >= 0 && slotKey[last] == key && slotW0[last] == w0 && slotW1[last] == w1) {
            return slotStats[last];
        }
        long h = (w0 * 0x9E3779B97F4A7C15L) ^ (w1 * 0xC2B2AE3D27D4EB4FL) ^ (key * 0x165667B19E3779F9L);
        int slot = (int) (h >>> 54); // 10 bits: SLOTS = 1024
        while (slotKey[slot] != 0) {
            if (slotKey[slot] == key && slotW0[slot] == w0 && slotW1[slot] == w1) {
                lastSlot = slot;
                return slotStats[slot];
            }
            slot = (slot + 1) & (SLOTS - 1);
        }
        for (int k = from; k < to; k++) {
            byte c = b[k];
            if (c == '"' || c == ' ' || c == '\t' || c == '\r') {
                return FALLBACK_STATS;
            }
        }
        SeriesStats[] stats = handler.resolve(b, from, to, device, row);
        if (stats != null && entries < MAX_ENTRIES) {
            slotKey[slot] = key;
            slotW0[slot] = w0;
            slotW1[slot] = w1;
            slotStats[slot] = stats;
            entries++;
            lastSlot = slot;
        }
        return stats;
    }
}

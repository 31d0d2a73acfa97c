package io.hbmledger.evidence.msprof;

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

    private static final byte SKIP = 0;
    private static final byte DEVICE = 1;
    private static final byte GROUP = 2;
    private static final byte TS = 3;
    private static final byte VALUE0 = 4; // VALUE0 + k for the k-th value column

    private static final long[] POW10 = {1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000,
        100_000_000, 1_000_000_000, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L};

    private final byte[] kinds;
    private final int fieldCount;
    private final long[] units;
    private final int valueCount;
    private final CsvRowHandler handler;

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles
            .byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * Consecutive rows mostly repeat the cells before the timestamp ({@code 0,SLOG,}): when a
     * row starts with the same up to 16 bytes as the last clean row's cells before its
     * timestamp, device and group are that row's and parsing starts at the timestamp. Only
     * for layouts whose columns before the timestamp are device, group or skipped ones.
     */
    private final boolean laneAllowed;
    private final int tsCol;
    private int laneLen;
    private long laneW0;
    private long laneM0;
    private long laneW1;
    private long laneM1;
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
        this.tsCol = handler.timestampColumn();
        boolean allowed = handler.groupColumn() < tsCol;
        for (int c = 0; c < tsCol; c++) {
            allowed &= kinds[c] < VALUE0;
        }
        this.laneAllowed = allowed;
        values = new long[valueCount];
        valueFrom = new int[valueCount];
        valueTo = new int[valueCount];
    }

    /**
     * Runs the fast path over made-up lines in this layout that take every branch (zero and
     * non-zero amounts, with and without decimals, empty cells, short and long names, NPU:
     * prefixes, CRLF), on a throwaway tally. Real exports are grouped by component, so the
     * first million rows are often all zeros of one module; the JIT compiles for what it has
     * seen and then throws the code away at each new kind of row (seen: eight recompilations
     * and seconds in the interpreter on a 1 GiB file). Warmed this way it compiles once.
     * Only worth its few milliseconds for large files.
     */
    static void warmUp(CsvLayout layout) {
        Tally tally = new Tally(Instants.NONE);
        CsvRowHandler handler = new CsvRowHandler(layout, tally, -1);
        FusedLineParser f = forLayout(layout, handler);
        if (f == null) {
            return;
        }
        // every branch of line() and series() at least once: profiles with a branch never taken
        // make C2 compile it as a trap, and each trap that fires later costs a recompilation
        String[][] cells = {
            {"x", "NPU:0", "897357296", "", "a\"b", "1.5"},
            {"0", "NPU:3", "12", "0", "NPU:1", "host", "NPU:15", "1234567", "15"},
            layout.table() == MsprofTable.NPU_MEM ? new String[] {"app", "device", "APP", "other"}
                : new String[] {"APP", "HCCL", "ASCENDCKERNEL", "SLOG", "MDCPERCEPTION", "ASCENDCKERNEL123",
                    "ASCENDCKERNEL1234", "PTA+GE", "GE", "TSDUMP", "\"APP\"", "A B"},
            {"1736408883657146.822\t", "1695115378653323.5", "1736408883657146", "17364088836571.8\t",
                "12345678", "12345678.123456789\t", "1736408883657146.", "17364088836571466", "1.2.3", "\t5"},
        };
        String[] amounts = {"0.0", "413760", "404.0625", "0", "92.234375", "", "1.5", "2109.6015625", "0.0", "-1",
            "413760", "0.0", "54941608", "123456789012", "0.123456789", "5.", ".", ".5", "1e3", "12345678.5"};
        StringBuilder sb = new StringBuilder();
        for (int v = 0; v < 97; v++) {
            for (int c = 0; c < f.fieldCount; c++) {
                if (c > 0) {
                    sb.append(',');
                }
                byte kind = f.kinds[c];
                String[] choices = kind >= VALUE0 ? amounts : cells[kind];
                sb.append(choices[(v * 7 + c * 3 + v / choices.length) % choices.length]);
            }
            sb.append(v % 3 == 0 ? "\r\n" : "\n");
        }
        byte[] text = sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int end = text.length;
        byte[] b = java.util.Arrays.copyOf(text, end + SLACK);
        for (int round = 0; round < 1000; round++) {
            int p = 0;
            long row = 0;
            while (p < end) {
                // the same line cut short, as at the end of a read buffer: takes every "need more" exit
                f.line(b, p, Math.min(end, p + 1 + (round + (int) row) % 48), row + 1);
                int next = f.line(b, p, end, ++row);
                if (next < 0) {
                    int nl = p;
                    while (nl < end && b[nl] != '\n') {
                        nl++;
                    }
                    next = nl + 1;
                }
                p = next;
            }
        }
    }

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long LOW7 = 0x7F7F7F7F7F7F7F7FL;
    private static final long COMMAS = 0x2C2C2C2C2C2C2C2CL;
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    private static final long QUOTES = 0x2222222222222222L;
    /** "NPU:" as a little-endian int. */
    private static final long NPU_COLON = 0x3A55504EL;

    /** Bytes a line parse may read past the end of the data: the read buffer keeps this much slack. */
    static final int SLACK = 64;

    private static long word(byte[] b, int i) {
        return (long) LONGS.get(b, i);
    }

    /**
     * High bit set in each byte of {@code w} equal to the byte of {@code pattern} (SWAR
     * haszero). Bytes above the first match may be flagged too, so only the lowest set bit is
     * used: it is exact.
     */
    private static long eq(long w, long pattern) {
        long x = w ^ pattern;
        return (x - ONES) & ~x & HIGHS;
    }

    /** High bit set in each byte of {@code w} that is not an ASCII digit (exact per byte). */
    private static long nonDigits(long w) {
        long z = ((w & 0xF0F0F0F0F0F0F0F0L) ^ 0x3030303030303030L)
                | (((w + 0x0606060606060606L) & 0xF0F0F0F0F0F0F0F0L) ^ 0x3030303030303030L);
        return (((z & LOW7) + LOW7) | z) & HIGHS;
    }

    /** How many of the first bytes of {@code w} are digits (0..8). */
    private static int digitCount(long w) {
        return Long.numberOfTrailingZeros(nonDigits(w)) >>> 3;
    }

    /** Masks of the first k bytes of a word, k = 0..8. */
    private static final long[] FIRST_BYTES = {0, 0xFFL, 0xFFFFL, 0xFFFFFFL, 0xFFFFFFFFL, 0xFFFFFFFFFFL,
        0xFFFFFFFFFFFFL, 0xFFFFFFFFFFFFFFL, -1L};

    /** The first {@code k} (0..8) bytes of {@code w}, all ASCII digits, as a number (0 for k = 0). */
    private static long parseDigits(long w, int k) {
        // digits move to the high end, the bytes after them are masked off (as are borrows from
        // them); without a branch for k = 0, where the shift by 64 is a shift by 0 of nothing
        long x = ((w - 0x3030303030303030L) & FIRST_BYTES[k]) << ((8 - k) << 3);
        x = (x * 10) + (x >>> 8);
        return (((x & 0x000000FF000000FFL) * (100 + (1000000L << 32)))
                + (((x >>> 16) & 0x000000FF000000FFL) * (1 + (10000L << 32)))) >>> 32;
    }

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
        int tsStart = -1;
        boolean laned = false;
        int len = laneLen;
        if (len > 0 && p + len < n && ((word(b, p) ^ laneW0) & laneM0) == 0
                && (len <= 8 || ((word(b, p + 8) ^ laneW1) & laneM1) == 0)) {
            i = p + len;
            col = tsCol;
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
                    while (true) {
                        long w = word(b, i);
                        long m = eq(w, COMMAS) | eq(w, NEWLINES) | eq(w, QUOTES);
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
                    if (b[i] == '"') {
                        return FALLBACK;
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
                    tsStart = i;
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
                if (!laned) {
                    remember(b, p, tsStart, device, groupFrom, groupTo);
                }
                return i + 1;
            } else {
                return FALLBACK;
            }
        }
    }

    private void remember(byte[] b, int p, int tsStart, int device, int groupFrom, int groupTo) {
        int len = tsStart - p;
        if (!laneAllowed || len <= 0 || len > 16) {
            laneLen = 0;
            return;
        }
        laneM0 = FIRST_BYTES[Math.min(len, 8)];
        laneW0 = word(b, p) & laneM0;
        laneM1 = FIRST_BYTES[Math.max(len - 8, 0)];
        laneW1 = len > 8 ? word(b, p + 8) & laneM1 : 0;
        laneDevice = device;
        laneGroupOff = groupFrom - p;
        laneGroupLen = groupTo - groupFrom;
        laneLen = len;
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

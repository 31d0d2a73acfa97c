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

    /** The last group cell seen (validated), to skip re-checking its bytes. */
    private final byte[] lastGroup = new byte[64];
    private int lastGroupLen;
    /** The first up to 8 bytes of lastGroup as a little-endian word. */
    private long lastGroupWord;

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
        Tally tally = new Tally(new long[0]);
        CsvRowHandler handler = new CsvRowHandler(layout, tally, -1);
        FusedLineParser f = forLayout(layout, handler);
        if (f == null) {
            return;
        }
        String[][] cells = {
            {"x", "NPU:0", "897357296", ""},
            {"0", "NPU:3", "12", "0", "NPU:1", "host"},
            layout.table() == MsprofTable.NPU_MEM ? new String[] {"app", "device"}
                : new String[] {"APP", "HCCL", "ASCENDCKERNEL", "SLOG", "MDCPERCEPTION"},
            {"1736408883657146.822\t", "1695115378653323.5", "1736408883657146", "17364088836571.8\t"},
        };
        String[] amounts = {"0.0", "413760", "404.0625", "0", "92.234375", "", "1.5", "2109.6015625", "0.0", "-1",
            "413760", "0.0"};
        StringBuilder sb = new StringBuilder();
        for (int v = 0; v < 40; v++) {
            for (int c = 0; c < f.fieldCount; c++) {
                if (c > 0) {
                    sb.append(',');
                }
                byte kind = f.kinds[c];
                String[] choices = kind >= VALUE0 ? amounts : cells[kind];
                sb.append(choices[(v * 7 + c * 3) % choices.length]);
            }
            sb.append(v % 3 == 0 ? "\r\n" : "\n");
        }
        byte[] b = sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int round = 0; round < 2500; round++) {
            int p = 0;
            long row = 0;
            while (p < b.length) {
                // the same line cut short, as at the end of a read buffer: takes every "need more" exit
                f.line(b, p, Math.min(b.length, p + 1 + (round + (int) row) % 48), row + 1);
                f.forget();
                int next = f.line(b, p, b.length, ++row);
                if (next < 0) {
                    f.forget();
                    int nl = p;
                    while (nl < b.length && b[nl] != '\n') {
                        nl++;
                    }
                    next = nl + 1;
                }
                p = next;
            }
        }
    }

    /** Forgets the cached group: a row went through the general path and may have changed it. */
    void forget() {
        lastGroupLen = 0;
    }

    /**
     * Eight ASCII digits at {@code b[i..i+8)} as a number, or -1 when any byte is not a digit
     * (SWAR: all eight checked and combined with a few multiplications).
     */
    static long digits8(byte[] b, int i) {
        long v = (long) LONGS.get(b, i);
        if ((v & 0xF0F0F0F0F0F0F0F0L) != 0x3030303030303030L
                || ((v + 0x0606060606060606L) & 0xF0F0F0F0F0F0F0F0L) != 0x3030303030303030L) {
            return -1;
        }
        long x = v - 0x3030303030303030L;
        x = (x * 10) + (x >>> 8);
        x = (((x & 0x000000FF000000FFL) * (100 + (1000000L << 32)))
                + (((x >>> 16) & 0x000000FF000000FFL) * (1 + (10000L << 32)))) >>> 32;
        return x;
    }

    /**
     * Parses the line starting at {@code p}.
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
        boolean same = false;
        int i = p;
        int col = 0;
        while (true) {
            if (i >= n) {
                return NEED_MORE;
            }
            byte kind = col < fieldCount ? kinds[col] : SKIP;
            switch (kind) {
                case SKIP -> {
                    while (i < n) {
                        byte c = b[i];
                        if (c == ',' || c == '\n') {
                            break;
                        }
                        if (c == '"') {
                            return FALLBACK;
                        }
                        i++;
                    }
                }
                case DEVICE -> {
                    if (i + 4 <= n && b[i] == 'N' && b[i + 1] == 'P' && b[i + 2] == 'U' && b[i + 3] == ':') {
                        i += 4;
                    }
                    int d = 0;
                    int start = i;
                    while (i < n) {
                        int c = b[i] - '0';
                        if (c < 0 || c > 9) {
                            break;
                        }
                        d = d * 10 + c;
                        i++;
                    }
                    if (i == start || i - start > 6) {
                        return i >= n ? NEED_MORE : FALLBACK;
                    }
                    device = d;
                    if (i < n && b[i] == '\r') {
                        i++;
                    }
                }
                case GROUP -> {
                    groupFrom = i;
                    int len = lastGroupLen;
                    if (len > 0 && i + len < n && b[i + len] == ',') {
                        boolean equal;
                        if (len <= 8 && i + 8 <= n) {
                            // one 8-byte compare, masked to the group's length
                            long mask = len == 8 ? -1L : (1L << (len * 8)) - 1;
                            equal = (((long) LONGS.get(b, i)) & mask) == lastGroupWord;
                        } else {
                            int k = 0;
                            while (k < len && b[i + k] == lastGroup[k]) {
                                k++;
                            }
                            equal = k == len;
                        }
                        if (equal) {
                            groupTo = i + len;
                            i += len;
                            same = true;
                            break;
                        }
                    }
                    while (i < n) {
                        byte c = b[i];
                        if (c == ',' || c == '\n') {
                            break;
                        }
                        if (c == '"' || c == ' ' || c == '\t' || c == '\r') {
                            return FALLBACK;
                        }
                        i++;
                    }
                    groupTo = i;
                    if (groupTo == groupFrom && i < n) {
                        return FALLBACK;
                    }
                    if (i < n && groupTo - groupFrom <= lastGroup.length) {
                        System.arraycopy(b, groupFrom, lastGroup, 0, groupTo - groupFrom);
                        lastGroupLen = groupTo - groupFrom;
                        long word = 0;
                        for (int k = Math.min(8, lastGroupLen) - 1; k >= 0; k--) {
                            word = (word << 8) | (lastGroup[k] & 0xFF);
                        }
                        lastGroupWord = word;
                    }
                }
                case TS -> {
                    long whole = 0;
                    int start = i;
                    if (i + 16 < n) {
                        long hi = digits8(b, i);
                        long lo = hi < 0 ? -1 : digits8(b, i + 8);
                        if (lo >= 0) {
                            whole = hi * 100_000_000L + lo;
                            i += 16;
                        }
                    }
                    while (i < n) {
                        int c = b[i] - '0';
                        if (c < 0 || c > 9) {
                            break;
                        }
                        whole = whole * 10 + c;
                        i++;
                    }
                    int digits = i - start;
                    long frac = 0;
                    int fd = 0;
                    if (i < n && b[i] == '.') {
                        i++;
                        while (i < n) {
                            int c = b[i] - '0';
                            if (c < 0 || c > 9) {
                                break;
                            }
                            if (fd < 3) {
                                frac = frac * 10 + c;
                                fd++;
                            }
                            i++;
                        }
                    }
                    while (i < n && (b[i] == '\t' || b[i] == ' ' || b[i] == '\r')) {
                        i++;
                    }
                    if (digits == 0 || digits > 16 || whole > Long.MAX_VALUE / 1000 - 1000) {
                        return i >= n ? NEED_MORE : FALLBACK;
                    }
                    ts = whole * 1000 + frac * POW10[3 - fd];
                }
                default -> {
                    int k = kind - VALUE0;
                    int start = i;
                    long m = 0;
                    int digits = 0;
                    int scale = 0;
                    while (i < n) {
                        int c = b[i] - '0';
                        if (c < 0 || c > 9) {
                            break;
                        }
                        m = m * 10 + c;
                        digits++;
                        i++;
                    }
                    if (i < n && b[i] == '.') {
                        i++;
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
                    int end = i;
                    if (i < n && b[i] == '\r') {
                        i++;
                    }
                    if (i >= n) {
                        return NEED_MORE;
                    }
                    if (digits == 0) {
                        if (b[i] == ',' || b[i] == '\n') {
                            break; // empty cell: absent
                        }
                        return FALLBACK;
                    }
                    if (digits > 17 || scale > 12) {
                        return FALLBACK;
                    }
                    if (m == 0) {
                        values[k] = 0;
                        valueFrom[k] = start;
                        valueTo[k] = end;
                        break;
                    }
                    long unit = units[k];
                    long hi = Math.multiplyHigh(m, unit);
                    long lo = m * unit;
                    if (hi != 0 || lo < 0) {
                        return FALLBACK;
                    }
                    long div = POW10[scale];
                    long q = lo / div;
                    if ((lo - q * div) * 2 >= div) {
                        q++;
                    }
                    values[k] = q;
                    valueFrom[k] = start;
                    valueTo[k] = end;
                }
            }
            if (i >= n) {
                return NEED_MORE;
            }
            byte c = b[i];
            if (c == ',') {
                col++;
                i++;
            } else if (c == '\n') {
                if (col + 1 < fieldCount) {
                    return FALLBACK;
                }
                handler.fused(b, groupFrom, groupTo, same, device, ts, values, valueFrom, valueTo, row);
                return i + 1;
            } else {
                return FALLBACK;
            }
        }
    }
}

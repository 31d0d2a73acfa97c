package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.Quote;
import java.util.Arrays;

/**
 * Turns the cells of one CSV data row into samples of a {@link Tally}. Cells arrive as byte
 * ranges of a reused buffer; numbers are parsed in place. Consecutive rows of msprof exports
 * mostly share component and device, so the series of the previous row is reused without a
 * map lookup or a String.
 */
final class CsvRowHandler {

    /**
     * A row touched by a zeroed block (a profiler killed mid-write, a file system recovered
     * after a crash): any cell of it may be cut, so none is trusted.
     */
    static final String NUL_ROW = "holds NUL bytes, as a process killed mid-write or a file system recovered"
            + " after a crash leaves; row ignored";

    private final CsvLayout layout;
    private final Tally tally;
    /** Device for rows when the layout has no device column (from a device_N folder), or -1. */
    private final int folderDevice;

    private final int deviceCol;
    private final int groupCol;
    private final int tsCol;
    private final int[] valueCols;
    private final long[] valueUnits;
    private final MsprofQuantity[] valueQuantities;
    private final int neededFields;

    // cache of the previous row's series
    private byte[] lastGroup = new byte[64];
    private int lastGroupLen = -1;
    private int lastDevice = Integer.MIN_VALUE;
    private SeriesStats[] lastStats;

    // per-row state for lazy text
    private byte[] rowBuf;
    private int cellFrom;
    private int cellTo;
    private final SeriesStats.TextSource cellText = () -> Numbers.text(rowBuf, cellFrom, cellTo);

    CsvRowHandler(CsvLayout layout, Tally tally, int folderDevice) {
        this.layout = layout;
        this.tally = tally;
        this.folderDevice = folderDevice;
        this.deviceCol = layout.deviceColumn();
        switch (layout.table()) {
            case NPU_MEM -> {
                groupCol = layout.col(CsvLayout.EVENT);
                tsCol = layout.col(CsvLayout.TIMESTAMP);
                valueCols = new int[] {layout.col(CsvLayout.HBM)};
                valueUnits = new long[] {layout.unit(CsvLayout.HBM)};
                valueQuantities = null; // decided by the event cell
            }
            case NPU_MODULE_MEM -> {
                groupCol = layout.col(CsvLayout.COMPONENT);
                tsCol = layout.col(CsvLayout.TIMESTAMP);
                valueCols = new int[] {layout.col(CsvLayout.TOTAL_RESERVED)};
                valueUnits = new long[] {layout.unit(CsvLayout.TOTAL_RESERVED)};
                valueQuantities = new MsprofQuantity[] {MsprofQuantity.MODULE_RESERVED_PEAK};
            }
            case MEMORY_RECORD -> {
                groupCol = layout.col(CsvLayout.COMPONENT);
                tsCol = layout.col(CsvLayout.TIMESTAMP);
                valueCols = new int[] {layout.col(CsvLayout.TOTAL_ALLOCATED),
                    layout.col(CsvLayout.TOTAL_RESERVED), layout.col(CsvLayout.TOTAL_ACTIVE)};
                valueUnits = new long[] {layout.unit(CsvLayout.TOTAL_ALLOCATED),
                    layout.unit(CsvLayout.TOTAL_RESERVED), layout.unit(CsvLayout.TOTAL_ACTIVE)};
                valueQuantities = new MsprofQuantity[] {MsprofQuantity.ALLOCATED_PEAK,
                    MsprofQuantity.RESERVED_PEAK, MsprofQuantity.ACTIVE_PEAK};
            }
            case OPERATOR_MEMORY -> {
                groupCol = -1;
                tsCol = layout.col(CsvLayout.RELEASE_TIME);
                valueCols = new int[] {layout.col(CsvLayout.SIZE)};
                valueUnits = new long[] {layout.unit(CsvLayout.SIZE)};
                valueQuantities = null;
            }
            case STATIC_OP_MEM -> {
                groupCol = layout.col(CsvLayout.GRAPH_ID);
                tsCol = layout.col(CsvLayout.OP_NAME);
                valueCols = new int[] {layout.col(CsvLayout.SIZE)};
                valueUnits = new long[] {layout.unit(CsvLayout.SIZE)};
                valueQuantities = new MsprofQuantity[] {MsprofQuantity.STATIC_GRAPH_TOTAL};
            }
            default -> throw new IllegalStateException(layout.table().name());
        }
        int max = Math.max(deviceCol, Math.max(groupCol, tsCol));
        for (int c : valueCols) {
            max = Math.max(max, c);
        }
        neededFields = max + 1;
    }

    int[] valueColumns() {
        return valueCols.clone();
    }

    long[] valueUnits() {
        return valueUnits.clone();
    }

    int groupColumn() {
        return groupCol;
    }

    int timestampColumn() {
        return tsCol;
    }

    /**
     * The series of a clean row's group cell {@code b[from, to)} and device (ignored when the
     * layout has no device column), or null when the row is to be ignored (after a warning).
     */
    SeriesStats[] resolve(byte[] b, int from, int to, int device, long row) {
        return group(b, from, to, deviceCol < 0 ? folderDevice : device, row);
    }

    /**
     * A clean row already parsed by {@link FusedLineParser}: amounts in bytes, absent ones
     * {@link Numbers#INVALID}, {@code tsNs} in nanoseconds, {@code stats} from {@link #resolve}.
     */
    void fused(SeriesStats[] stats, byte[] b, long tsNs, long[] values, int[] from, int[] to, long row) {
        for (int i = 0; i < values.length; i++) {
            long v = values[i];
            SeriesStats s = stats[i];
            if (v == Numbers.INVALID || s == null) {
                continue;
            }
            if (v > Tally.MAX_PLAUSIBLE_BYTES) {   // the message is made only then: this is the hot path
                int f = from[i];
                int t = to[i];
                tally.beyondAnyDevice(v, row, "field " + (valueCols[i] + 1), () -> Numbers.text(b, f, t));
                continue;
            }
            if (s.addFast(v, tsNs, row, b, from[i], to[i])) {
                continue;
            }
            rowBuf = b;
            cellFrom = from[i];
            cellTo = to[i];
            s.add(v, tsNs, row, cellText);
        }
    }

    /** Columns whose unit the header does not give: their values cannot be converted. */
    String missingUnits() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < valueCols.length; i++) {
            if (valueCols[i] >= 0 && valueUnits[i] == 0) {
                sb.append(sb.length() == 0 ? "" : ", ").append("column ").append(valueCols[i] + 1);
            }
        }
        return sb.toString();
    }

    /**
     * One data row.
     *
     * @param s cell start offsets, {@code e} cell end offsets (exclusive), {@code n} cells
     * @param row 1-based data row within the current part
     */
    void row(byte[] b, int[] s, int[] e, int n, long row) {
        if (Numbers.holdsNul(b, s[0], e[n - 1])) {
            tally.warn(row, NUL_ROW);
            tally.emptyRows++;
            return;
        }
        if (n < neededFields) {
            if (n == 1 && Numbers.blank(b, s[0], e[0])) {
                tally.emptyRows++;
                return; // blank line
            }
            tally.warn(row, "expected " + layout.fieldCount() + " fields, found " + n + "; row ignored");
            return;
        }
        rowBuf = b;
        int device = folderDevice;
        if (deviceCol >= 0) {
            device = Numbers.deviceId(b, s[deviceCol], e[deviceCol]);
        }
        switch (layout.table()) {
            case OPERATOR_MEMORY -> operator(b, s, e, device, row);
            case STATIC_OP_MEM -> staticTotal(b, s, e, device, row);
            default -> sampled(b, s, e, device, row);
        }
    }

    private void sampled(byte[] b, int[] s, int[] e, int device, long row) {
        long ts = Numbers.microsToNanos(b, s[tsCol], e[tsCol]);
        if (ts == Numbers.INVALID) {
            // the amounts do not depend on the time: the row still counts for the maxima, but
            // for no moment and no window, which need a time
            tally.untimed(row, Quote.of(Numbers.text(b, s[tsCol], e[tsCol])));
            ts = SeriesStats.NONE;
        } else {
            java.math.BigDecimal step = Numbers.exponentStepMicros(b, s[tsCol], e[tsCol]);
            if (step != null) {
                tally.exponentTime(row, Numbers.text(b, s[tsCol], e[tsCol]), step);
            }
        }
        SeriesStats[] stats = group(b, s[groupCol], e[groupCol], device, row);
        if (stats == null) {
            return;
        }
        for (int i = 0; i < valueCols.length; i++) {
            int c = valueCols[i];
            if (c < 0 || stats[i] == null || valueUnits[i] == 0) {
                continue;
            }
            long v = Numbers.amount(b, s[c], e[c], valueUnits[i]);
            if (v == Numbers.INVALID || v == Numbers.OUT_OF_RANGE) {
                if (!Numbers.blank(b, s[c], e[c])) {
                    tally.warn(row, "field " + (c + 1) + " " + Numbers.refused(b, s[c], e[c], v) + "; value ignored");
                }
                continue; // an empty cell is absent, not 0
            }
            if (v < 0) {
                String text = Numbers.text(b, s[c], e[c]);
                if (Numbers.minusOne(text)) {
                    tally.minusOne(row);
                } else {
                    tally.warn(row, Numbers.negative("field " + (c + 1), text));
                }
                continue;
            }
            cellFrom = s[c];
            cellTo = e[c];
            rowBuf = b;
            if (v > Tally.MAX_PLAUSIBLE_BYTES) {
                tally.beyondAnyDevice(v, row, "field " + (c + 1), cellText);
                continue;
            }
            stats[i].add(v, ts, row, cellText);
        }
    }

    /** The series of this row's component (or npu_mem event) and device, cached across rows. */
    private SeriesStats[] group(byte[] b, int from, int to, int device, long row) {
        int len = to - from;
        if (device == lastDevice && len == lastGroupLen
                && Arrays.equals(b, from, to, lastGroup, 0, len)) {
            return lastStats;
        }
        if (Numbers.holdsNul(b, from, to)) {
            tally.warn(row, NUL_ROW);
            tally.emptyRows++;
            return null;
        }
        String name = Numbers.text(b, from, to);
        MsprofQuantity[] quantities = valueQuantities;
        if (layout.table() == MsprofTable.NPU_MEM) {
            MsprofQuantity q = switch (name.toLowerCase(java.util.Locale.ROOT)) {
                case "app" -> MsprofQuantity.APP_HBM_PEAK;
                case "device" -> MsprofQuantity.DEVICE_HBM_PEAK;
                default -> null;
            };
            if (q == null) {
                tally.warn(row, "event " + Quote.of(name) + " is neither app nor device; row ignored");
                return null;
            }
            quantities = new MsprofQuantity[] {q};
            name = null;
        }
        SeriesStats[] stats = new SeriesStats[quantities.length];
        for (int i = 0; i < quantities.length; i++) {
            if (valueCols[i] >= 0) {
                stats[i] = tally.stats(quantities[i], device, name);
            }
        }
        if (len > lastGroup.length) {
            lastGroup = new byte[len * 2];
        }
        System.arraycopy(b, from, lastGroup, 0, len);
        lastGroupLen = len;
        lastDevice = device;
        lastStats = stats;
        return stats;
    }

    private void operator(byte[] b, int[] s, int[] e, int device, long row) {
        int c = valueCols[0];
        long v = Numbers.amount(b, s[c], e[c], valueUnits[0]);
        if (v == Numbers.INVALID || v == Numbers.OUT_OF_RANGE) {
            tally.warn(row, "Size " + Numbers.refused(b, s[c], e[c], v) + "; row ignored");
            return;
        }
        tally.addOperator(device, v, tsCol >= 0 && Numbers.blank(b, s[tsCol], e[tsCol]), row,
                Numbers.text(b, s[c], e[c]));
    }

    private void staticTotal(byte[] b, int[] s, int[] e, int device, long row) {
        // a short cell only: an op name can be any length and is not needed as text
        if (e[tsCol] - s[tsCol] > 16 || !"TOTAL".equals(Numbers.text(b, s[tsCol], e[tsCol]))) {
            return;
        }
        int c = valueCols[0];
        long v = Numbers.amount(b, s[c], e[c], valueUnits[0]);
        if (v == Numbers.INVALID || v == Numbers.OUT_OF_RANGE) {
            tally.warn(row, "TOTAL Size " + Numbers.refused(b, s[c], e[c], v) + "; row ignored");
            return;
        }
        String graph = Numbers.text(b, s[groupCol], e[groupCol]);
        cellFrom = s[c];
        cellTo = e[c];
        rowBuf = b;
        if (tally.beyondAnyDevice(v, row, "TOTAL Size", cellText)) {
            return;
        }
        tally.stats(MsprofQuantity.STATIC_GRAPH_TOTAL, device, graph).add(v, SeriesStats.NONE, row, cellText);
    }
}

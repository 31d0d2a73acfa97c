package io.hbmledger.evidence.msprof;

import static io.hbmledger.evidence.msprof.Swar.FIRST_BYTES;
import static io.hbmledger.evidence.msprof.Swar.POW10;
import static io.hbmledger.evidence.msprof.Swar.digitCount;
import static io.hbmledger.evidence.msprof.Swar.parseDigits;
import static io.hbmledger.evidence.msprof.Swar.word;

/**
 * The hot loop of the sampled tables: the rows that follow a clean row of the same series.
 * msprof writes each (device, component) series as a block of thousands of rows that start with
 * the same cells ({@code 0,SLOG,}: the lane) and mostly have the same shape too
 * ({@code 0,SLOG,1736408883657146.822<TAB>,0.0,NPU:0}: the same cell lengths, the digits
 * changing). Two tiers, both in this one short loop:
 * <ul>
 * <li>the template: a row whose bytes are the last plain row's, except that digits may be other
 * digits (checked a word at a time), has that row's cell boundaries, so its numbers are read at
 * fixed offsets: no load waits for the length of the cell before it;</li>
 * <li>otherwise a row that starts with the lane (compared as four masked words, up to
 * {@link #MAX_LANE} bytes) and holds only plain cells after it is read cell by cell
 * ({@link #cells}, a call out of the loop), and becomes the template.</li>
 * </ul>
 * Every other row (another series, a quote, a sign, an empty or odd number, more or fewer
 * fields, a row cut by the buffer's end) ends the loop and goes through
 * {@link FusedLineParser#line}, which owns those cases, falls back to the general tokenizer, and
 * sets the next lane.
 *
 * <p>It accepts a subset of what {@code line} accepts and computes the same values the same way
 * (checked on the corpus and on generated edge rows by tests), so which of them reads a row
 * never changes a result. Checks that real data fails only rarely are folded into flags tested
 * once per row: a branch the JIT's profile never saw taken is compiled as a trap, and traps that
 * fired threw the reader's compiled code away and recompiled it, seconds of a 1 GiB read (issue 17).
 */
final class LaneLoop {

    /** Longest lane: the cells before the first amount or time, e.g. {@code 15,ASCENDCKERNEL,}. */
    static final int MAX_LANE = 32;

    static final byte SKIP = 0;
    static final byte DEVICE = 1;
    static final byte TS = 3;
    static final byte VALUE0 = 4;

    /** "NPU:" as a little-endian int. */
    private static final long NPU_COLON = 0x3A55504EL;

    private static final long TS_LIMIT = Long.MAX_VALUE / 1000 - 1000;

    /** Kinds of the cells after the lane, in order; the last one ends the row. */
    private final byte[] cells;
    private final long[] units;
    private final int valueCount;
    private final long[] values;
    private final int[] valueFrom;
    private final int[] valueTo;
    /** Fraction digits of each amount of the row read by {@link #cells}. */
    private final int[] valueFrac;

    // the lane: its bytes as masked words, and the series and device of its last row
    private int laneLen;
    private long w0;
    private long w1;
    private long w2;
    private long w3;
    private long m0;
    private long m1;
    private long m2;
    private long m3;
    private SeriesStats[] stats;
    private int device;

    /** The shape of the last plain row (single-amount layouts only; see {@link RowTemplate}). */
    private final RowTemplate template;
    /** The amount's cell (up to 16 bytes, masked; -1: none) in the last row read, and its value. */
    private long lastCell0;
    private long lastCell1;
    private long cellMask0;
    private long cellMask1;
    private long lastAmount;
    /** True when the last {@link #rows} call stopped at a row that may continue past the buffer. */
    private boolean needMore;

    // the row read by cells()
    private long rowTs;

    /** Rows read by the last {@link #rows} call. */
    private int count;

    /**
     * @param cells the kinds ({@link #SKIP}, {@link #DEVICE}, {@link #TS}, {@code VALUE0 + k})
     *     of the columns after the lane
     * @param units bytes per written unit of each value column
     */
    LaneLoop(byte[] cells, long[] units) {
        this.cells = cells.clone();
        this.units = units.clone();
        this.valueCount = units.length;
        this.values = new long[valueCount];
        this.valueFrom = new int[valueCount];
        this.valueTo = new int[valueCount];
        java.util.Arrays.fill(values, Numbers.INVALID);
        this.valueFrac = new int[valueCount];
        template = valueCount == 1 ? new RowTemplate() : null;
    }

    /** No lane: the next row goes to {@link FusedLineParser#line}. */
    void clear() {
        laneLen = 0;
        forget();
        stats = null;
    }

    /**
     * Takes the {@code len} bytes at {@code b[p..]} (the cells before the lane's end, commas
     * included) as the lane, for rows of the series {@code rowStats} on {@code rowDevice}.
     */
    void set(byte[] b, int p, int len, SeriesStats[] rowStats, int rowDevice) {
        if (len <= 0 || len > MAX_LANE || rowStats == null) {
            clear();
            return;
        }
        m0 = FIRST_BYTES[Math.min(len, 8)];
        m1 = FIRST_BYTES[Math.max(0, Math.min(len - 8, 8))];
        m2 = FIRST_BYTES[Math.max(0, Math.min(len - 16, 8))];
        m3 = FIRST_BYTES[Math.max(0, len - 24)];
        w0 = word(b, p) & m0;
        w1 = word(b, p + 8) & m1;
        w2 = word(b, p + 16) & m2;
        w3 = word(b, p + 24) & m3;
        laneLen = len;
        forget();
        stats = rowStats;
        device = rowDevice;
    }

    /** The series and device of a row that continued the lane through {@code line}. */
    void follow(SeriesStats[] rowStats, int rowDevice) {
        stats = rowStats;
        device = rowDevice;
        forget();
        if (rowStats == null) {
            laneLen = 0;
        }
    }

    /** Length of the lane in bytes, 0 for none. */
    int laneLength() {
        return laneLen;
    }

    /** True when the {@code laneLen} bytes at {@code p} are the lane's (the caller knows they are in the buffer). */
    boolean matches(byte[] b, int p) {
        return (((word(b, p) ^ w0) & m0) | ((word(b, p + 8) ^ w1) & m1)
                | ((word(b, p + 16) ^ w2) & m2) | ((word(b, p + 24) ^ w3) & m3)) == 0;
    }

    int count() {
        return count;
    }

    /**
     * True when the last {@link #rows} call stopped only because the buffer may end inside the
     * next row: more data, if there is any, lets the loop go on.
     */
    boolean needMore() {
        return needMore;
    }

    /** The template and the last amount are no longer this series' (a new lane or device, or an odd row). */
    private void forget() {
        if (template != null) {
            template.len = 0;
        }
        cellMask0 = 0;
        cellMask1 = 0;
        lastCell0 = -1; // no masked cell equals it
    }

    /**
     * Reads the rows from {@code p} on while they continue the lane and are plain, each one into
     * the lane's series; {@link #count()} tells how many. May read up to
     * {@link FusedLineParser#SLACK} bytes past {@code n}; a row that reaches {@code n} is left.
     *
     * @param row the 1-based number of the row at {@code p}
     * @return the start of the first row not read
     */
    int rows(byte[] b, int p, int n, long row) {
        if (laneLen == 0 || stats == null) {
            // no lane: nothing for the loops, which then never see a null series
            count = 0;
            needMore = false;
            return p;
        }
        // in calls of at most CHUNK rows: the JIT compiles a method after some hundred calls, or
        // a loop after ~60,000 turns, which a call per buffer of ~1,600 rows left to the
        // interpreter for the first 0.2 s of a read (most of npu_mem, read before npu_module_mem)
        int total = 0;
        while (true) {
            p = template != null ? rowsOfOneAmount(b, p, n, row + total) : rowsByCells(b, p, n, row + total);
            total += count;
            if (count < CHUNK) {
                break;
            }
        }
        count = total;
        return p;
    }

    /** Most rows one call of the loops reads. */
    private static final int CHUNK = 32;

    /**
     * {@link #rows} for layouts with one amount: through the template when the row fits it. Every
     * way out is one branch ({@code end < 0}), taken once per call, and the rare cases (a time or
     * amount beyond a long, another device) only set {@code end}: no branch here is one that
     * real data may leave untaken for millions of rows and then take (see the class comment).
     */
    private int rowsOfOneAmount(byte[] b, int p, int n, long row) {
        int done = 0;
        SeriesStats series = stats[0]; // one amount: its series is never null
        RowTemplate t = template;
        long unit = units[0];
        // the samples' times, added to the series once at the end (SeriesStats.addTimes)
        long samples = 0;
        long first = SeriesStats.NONE;
        long last = series.lastInOrderTsNs;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long gap = 0;
        // the amount's cell as locals: fields written in the loop would be loaded again every row
        long mask0 = cellMask0;
        long mask1 = cellMask1;
        long cellBefore0 = lastCell0;
        long cellBefore1 = lastCell1;
        long amountBefore = lastAmount;
        // the template's shape as locals too, read again after a row that changes it
        int len = t.len;
        int amountFrom = t.amountFrom;
        int amountTo = t.amountTo;
        boolean present = t.amountPresent;
        while (true) {
            long ts;
            long v;
            int end;
            int from;
            int to;
            if (len > 0 && p + len > n) {
                // the next row is probably cut by the buffer's end: more data first (the
                // template stays: the rows after the refill are likely of its shape too)
                break;
            } else if (len > 0 && t.fits(b, p)) {
                long micros = t.micros(b, p);
                ts = t.nanos(b, p, micros);
                from = p + amountFrom;
                to = p + amountTo;
                long cell0 = word(b, from) & mask0;
                long cell1 = word(b, from + 8) & mask1;
                if (cell0 == cellBefore0 & cell1 == cellBefore1) {
                    v = amountBefore; // the cell of the row before: most series hold a value for long
                } else {
                    RowTemplate.Number a = t.amount;
                    v = bytes(a.whole(b, p) * POW10[a.frac] + a.fraction(b, p), unit, a.frac);
                    cellBefore0 = cell0;
                    cellBefore1 = cell1;
                    amountBefore = v;
                }
                boolean ok = micros <= TS_LIMIT & v != OVERFLOW; // fits() saw the device's digits
                v = present ? v : Numbers.INVALID;
                end = ok ? p + len - 1 : -1;
            } else {
                // the lane's bytes, then the cells one by one (in a call: not the common case)
                int lane = laneLen;
                boolean laned = lane > 0 & p + lane < n && matches(b, p);
                if (laned && len > 0 && t.refit(b, p)) {
                    continue; // only the time's first 8 digits changed: the row again, through the template
                }
                forget();
                end = laned ? cells(b, p, p + lane, n) : -1;
                long m = values[0];
                v = m == Numbers.INVALID ? m : bytes(m, unit, valueFrac[0]);
                end = v == OVERFLOW ? -1 : end;
                ts = rowTs;
                from = valueFrom[0];
                to = valueTo[0];
                if (end >= 0) {
                    learn(b, p, end, lane);
                }
                // forget() and learn() set them
                mask0 = cellMask0;
                mask1 = cellMask1;
                cellBefore0 = lastCell0;
                cellBefore1 = lastCell1;
                amountBefore = lastAmount;
                len = t.len;
                amountFrom = t.amountFrom;
                amountTo = t.amountTo;
                present = t.amountPresent;
            }
            if (end < 0) {
                break;
            }
            if (v != Numbers.INVALID) {
                series.addValueFast(v, ts, row + done, b, from, to);
                first = samples == 0 ? ts : first;
                samples++;
                min = Math.min(min, ts);
                max = Math.max(max, ts);
                gap = Math.max(gap, ts - last); // negative after NONE: no gap before a first sample
                last = ts;
            }
            p = end + 1;
            if (++done == CHUNK) {
                break;
            }
        }
        lastCell0 = cellBefore0;
        lastCell1 = cellBefore1;
        lastAmount = amountBefore;
        series.addTimes(samples, first, last, min, max, gap); // no samples: changes nothing
        series.keepInstantCells(); // before the caller refills the buffer
        count = done;
        needMore = t.len > 0 && p + t.len > n;
        return p;
    }

    /**
     * Makes the row at {@code p} the template, and its amount's cell (up to 16 bytes) the one
     * compared with the next rows'. Not the last one read: the next row parses its amount even
     * when the cell is the same, so the branch that parses is taken after every new template.
     * Series that hold one value for long (a module at 0.0) otherwise left it untaken for
     * hundreds of thousands of rows, until the first change threw the hot loop's compiled code
     * away (a trap, issue 17).
     */
    private void learn(byte[] b, int p, int end, int lane) {
        RowTemplate t = template;
        t.learn(b, p, end, lane);
        int cell = t.amountTo - t.amountFrom;
        if (t.len > 0 && cell <= 16) {
            cellMask0 = FIRST_BYTES[Math.min(cell, 8)];
            cellMask1 = FIRST_BYTES[Math.max(cell - 8, 0)];
        }
    }

    /** {@link #rows} for layouts with several amounts (memory_record): each row cell by cell. */
    private int rowsByCells(byte[] b, int p, int n, long row) {
        int done = 0;
        SeriesStats[] series = stats;
        int lane = laneLen;
        while (done < CHUNK && p + lane < n && matches(b, p)) {
            int end = cells(b, p, p + lane, n);
            if (end < 0) {
                break;
            }
            boolean fits = true;
            for (int k = 0; k < valueCount; k++) {
                long m = values[k];
                long v = m == Numbers.INVALID ? m : bytes(m, units[k], valueFrac[k]);
                fits &= v != OVERFLOW;
                values[k] = v;
            }
            if (!fits) {
                break;
            }
            for (int k = 0; k < valueCount; k++) {
                long v = values[k];
                SeriesStats s = series[k];
                if (v != Numbers.INVALID & s != null) {
                    s.addFast(v, rowTs, row + done, b, valueFrom[k], valueTo[k]);
                }
            }
            done++;
            p = end + 1;
        }
        count = done;
        needMore = false;
        return p;
    }

    /** {@link #bytes}: the amount does not fit a long, or is more than any device holds. */
    private static final long OVERFLOW = Numbers.OUT_OF_RANGE;

    /**
     * The amount {@code mantissa / 10^frac} of {@code unit} bytes, exactly, rounded half up to a
     * byte as {@link Numbers#amount} does; {@link #OVERFLOW} when it does not fit a long.
     */
    private static long bytes(long mantissa, long unit, int frac) {
        long lo = mantissa * unit;
        long div = POW10[frac];
        long q = Swar.divPow10(lo, frac);
        q += (lo - q * div) * 2 >= div ? 1 : 0;
        // an amount beyond any device leaves the loop too: the general path warns and drops it
        return Math.multiplyHigh(mantissa, unit) != 0 | lo < 0 | q > Tally.MAX_PLAUSIBLE_BYTES ? OVERFLOW : q;
    }

    /**
     * Reads the cells of the row at {@code p} after the lane (from {@code q}) one by one, into
     * {@link #rowTs}, {@link #values} (mantissas: digits without the dot, or
     * {@link Numbers#INVALID} for an empty cell), {@link #valueFrac} and the template's offsets.
     *
     * @return the index of the row's line feed, or -1 when the row is not plain or reaches {@code n}
     */
    private int cells(byte[] b, int p, int q, int n) {
        int i = q;
        boolean bad = false;
        int last = cells.length - 1;
        RowTemplate t = template;
        if (t != null) {
            t.device(0, 0);
        }
        for (int c = 0; c <= last; c++) {
            if (i >= n) {
                return -1;
            }
            byte kind = cells[c];
            if (kind == TS) {
                long w = word(b, i);
                int k = digitCount(w);
                long wb = word(b, i + 8);
                int k2 = k == 8 ? digitCount(wb) : 0;
                long whole = parseDigits(w, k) * POW10[k2] + parseDigits(wb, k2);
                int start = i;
                i += k + k2;
                bad |= k == 0 | whole > TS_LIMIT;
                int dot = b[i] == '.' ? 1 : 0;
                i += dot;
                long wf = word(b, i);
                int f = dot == 0 ? 0 : digitCount(wf);
                int used = Math.min(f, 3);
                rowTs = whole * 1000 + parseDigits(wf, used) * POW10[3 - used];
                if (t != null) {
                    t.time(start - p, k + k2, i - p, f);
                }
                i += f;
                bad |= f == 8; // a fraction this long: line() reads it to its end
                i += b[i] == '\t' ? 1 : 0;
            } else if (kind >= VALUE0) {
                int k = kind - VALUE0;
                int start = i;
                long w = word(b, i);
                int d = digitCount(w);
                long wb = word(b, i + 8);
                int d2 = d == 8 ? digitCount(wb) : 0;
                long m = parseDigits(w, d) * POW10[d2] + parseDigits(wb, d2);
                i += d + d2;
                int dot = b[i] == '.' ? 1 : 0;
                i += dot;
                long wf = word(b, i);
                int f = dot == 0 ? 0 : digitCount(wf);
                m = m * POW10[f] + parseDigits(wf, f);
                int fracAt = i;
                i += f;
                int digits = d + d2 + f;
                // 16+ integer digits, 8+ decimals, 18+ digits in all, a lone dot: line()'s
                bad |= d2 == 8 | f == 8 | digits > 17 | (digits == 0 & dot != 0);
                values[k] = digits == 0 ? Numbers.INVALID : m; // an empty cell is absent, not 0
                valueFrac[k] = Math.min(f, 7); // 8 is a bad row: any value will do, in range
                valueFrom[k] = start;
                valueTo[k] = i;
                if (t != null) {
                    t.amount(start - p, d + d2, fracAt - p, f, i - p, digits != 0);
                }
            } else if (kind == DEVICE) {
                long w = word(b, i);
                i += (w & 0xFFFFFFFFL) == NPU_COLON ? 4 : 0;
                w = word(b, i);
                int k = digitCount(w);
                bad |= k == 0 | k > 6 | (int) parseDigits(w, k) != device;
                if (t != null) {
                    t.device(i - p, k);
                }
                i += k;
            } else {
                i = Swar.cellEnd(b, i, n);
                if (i < 0) {
                    return -1;
                }
                bad |= b[i] == '"' | b[i] == 0;
            }
            if (c < last) {
                bad |= b[i] != ',';
                i++;
            }
        }
        // the row ends at LF, or CR LF after a number
        i += b[i] == '\r' & cells[last] != SKIP ? 1 : 0;
        return i >= n || bad || b[i] != '\n' ? -1 : i;
    }
}

package io.hbmledger.evidence.msprof;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one pass over (part of) one memory table keeps: per-series running stats,
 * operator_memory sums per device, static_op_mem graph totals, and row warnings. Its size
 * depends on the number of series (devices x components), never on the number of rows.
 * Rows are relative to the part; {@link #mergeFollowing} shifts them when parts are joined.
 */
final class Tally {

    /** One operator allocation above what any device holds is a misread (see {@link PhysicalBounds}). */
    static final long MAX_PLAUSIBLE_BYTES = io.hbmledger.evidence.PhysicalBounds.DEVICE_BYTES;

    /** How many row warnings one file keeps word for word; the rest are counted. */
    static final int MAX_WARNINGS = 20;

    record Key(MsprofQuantity quantity, int device, String component) {
        // written out: a record's generated equals and hashCode are bootstrapped through method
        // handles on first use, ~16 classes spun on a reader thread in the middle of a read (issue 17)
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.quantity == quantity && k.device == device
                    && java.util.Objects.equals(k.component, component);
        }

        @Override
        public int hashCode() {
            return (quantity.hashCode() * 31 + device) * 31 + java.util.Objects.hashCode(component);
        }
    }

    static final class OperatorSums {
        long total;
        long unreleased;
        long count;
        long lastRow;
    }

    record RowWarning(long row, String message) {
    }

    final Instants instants;
    /** The instants of each device's series (a device's own peak applies to its series only). */
    private final Map<Integer, Instants> byDevice = new java.util.HashMap<>();
    final Map<Key, SeriesStats> series = new LinkedHashMap<>();
    final Map<Integer, OperatorSums> operators = new LinkedHashMap<>();
    final List<RowWarning> warnings = new ArrayList<>();
    long droppedWarnings;
    /** Lines seen in this part (data rows, blank ones included). */
    long rows;
    /** Of those, lines that were blank or held NUL bytes: no data in them. */
    long emptyRows;
    /** Samples written as -1 (the CANN guide: only frees were seen), not counted as values. */
    long minusOne;
    long firstMinusOneRow;

    /** Rows whose time could not be read: their values are kept, untimed. */
    long untimed;
    long firstUntimedRow;
    String firstUntimedText;
    /** Rows whose time is in exponent notation (a spreadsheet re-saved the file). */
    long exponentTimes;
    long firstExponentRow;
    String firstExponentText;
    /** The coarsest step among those times, in microseconds: what the rounding left. */
    java.math.BigDecimal exponentStepUs;

    Tally(Instants instants) {
        this.instants = instants;
    }

    SeriesStats stats(MsprofQuantity q, int device, String component) {
        return series.computeIfAbsent(new Key(q, device, component), k -> new SeriesStats(instantsOf(device)));
    }

    private Instants instantsOf(int device) {
        return byDevice.computeIfAbsent(device, instants::forDevice);
    }

    /**
     * Adds one operator allocation of {@code bytes} on {@code device}, or warns and ignores the row
     * when the size is beyond any device.
     */
    void addOperator(int device, long bytes, boolean unreleased, long row, String sizeText) {
        if (bytes > MAX_PLAUSIBLE_BYTES) {
            warn(row, "size " + sizeText + " is " + bytes + " bytes, more than any device holds (1 TiB);"
                    + " are two columns swapped? row ignored");
            return;
        }
        OperatorSums sums = operators(device);
        sums.total += bytes;
        sums.count++;
        sums.lastRow = row;
        if (unreleased) {
            sums.unreleased += bytes;
        }
    }

    /**
     * True, after a row warning, when one sample of {@code bytes} is more than any device holds: it
     * is ignored, so that a misread (a mangled or shifted cell; MsprofFuzzTest found 4025750.0 KB,
     * 3.8 TiB, taken as a module's peak) never becomes a series' peak or value at an instant.
     */
    boolean beyondAnyDevice(long bytes, long row, String what, SeriesStats.TextSource text) {
        if (bytes <= MAX_PLAUSIBLE_BYTES) {
            return false;
        }
        warn(row, what + " " + io.hbmledger.evidence.Quote.of(text.text()) + " is " + bytes
                + " bytes, more than any device holds (1 TiB); value ignored");
        return true;
    }

    OperatorSums operators(int device) {
        return operators.computeIfAbsent(device, d -> new OperatorSums());
    }

    void warn(long row, String message) {
        if (warnings.size() < MAX_WARNINGS) {
            warnings.add(new RowWarning(row, message));
        } else {
            droppedWarnings++;
        }
    }

    void minusOne(long row) {
        if (minusOne++ == 0) {
            firstMinusOneRow = row;
        }
    }

    void untimed(long row, String cell) {
        if (untimed++ == 0) {
            firstUntimedRow = row;
            firstUntimedText = cell;
        }
    }

    void exponentTime(long row, String cell, java.math.BigDecimal stepUs) {
        if (exponentTimes++ == 0) {
            firstExponentRow = row;
            firstExponentText = cell;
        }
        if (exponentStepUs == null || stepUs.compareTo(exponentStepUs) > 0) {
            exponentStepUs = stepUs;
        }
    }

    /** Folds in the tally of the part that follows this one in the same file. */
    void mergeFollowing(Tally next) {
        long offset = rows;
        for (Map.Entry<Key, SeriesStats> e : next.series.entrySet()) {
            SeriesStats mine = series.get(e.getKey());
            if (mine == null) {
                SeriesStats fresh = new SeriesStats(instantsOf(e.getKey().device()));
                fresh.mergeFollowing(e.getValue(), offset);
                series.put(e.getKey(), fresh);
            } else {
                mine.mergeFollowing(e.getValue(), offset);
            }
        }
        for (Map.Entry<Integer, OperatorSums> e : next.operators.entrySet()) {
            OperatorSums mine = operators(e.getKey());
            OperatorSums theirs = e.getValue();
            mine.total += theirs.total;
            mine.unreleased += theirs.unreleased;
            mine.count += theirs.count;
            mine.lastRow = theirs.lastRow + offset;
        }
        for (RowWarning w : next.warnings) {
            warn(w.row() + offset, w.message());
        }
        droppedWarnings += next.droppedWarnings;
        if (next.minusOne > 0) {
            if (minusOne == 0) {
                firstMinusOneRow = next.firstMinusOneRow + offset;
            }
            minusOne += next.minusOne;
        }
        if (next.untimed > 0) {
            if (untimed == 0) {
                firstUntimedRow = next.firstUntimedRow + offset;
                firstUntimedText = next.firstUntimedText;
            }
            untimed += next.untimed;
        }
        if (next.exponentTimes > 0) {
            if (exponentTimes == 0) {
                firstExponentRow = next.firstExponentRow + offset;
                firstExponentText = next.firstExponentText;
            }
            exponentTimes += next.exponentTimes;
            if (exponentStepUs == null || next.exponentStepUs.compareTo(exponentStepUs) > 0) {
                exponentStepUs = next.exponentStepUs;
            }
        }
        rows += next.rows;
        emptyRows += next.emptyRows;
    }
}

package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Quote;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads one msprof / torch_npu memory export file, CSV or SQLite, in one pass.
 * Format names follow the evidence contract: {@code msprof-csv}, {@code msprof-db}.
 */
public final class MsprofFiles {

    public static final EvidenceFormat FORMAT_CSV = EvidenceFormat.MSPROF_CSV;
    public static final EvidenceFormat FORMAT_DB = EvidenceFormat.MSPROF_DB;

    static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.ISO_8859_1);

    private MsprofFiles() {
    }

    /** The format of a file from its first bytes, or empty when it is not an msprof memory export. */
    public static Optional<EvidenceFormat> detect(byte[] head) {
        if (head.length >= SQLITE_MAGIC.length
                && Arrays.equals(head, 0, SQLITE_MAGIC.length, SQLITE_MAGIC, 0, SQLITE_MAGIC.length)) {
            return Optional.of(FORMAT_DB);
        }
        String header = CsvFileScan.headerLine(head);
        if (header != null && CsvLayout.parse(header).isPresent()) {
            return Optional.of(FORMAT_CSV);
        }
        return Optional.empty();
    }

    /**
     * Reads one file.
     *
     * @param file the file
     * @param display the name to print in results and messages
     * @param folderDevice device id from a {@code device_N} folder, used only for rows of a file
     *     without a device column; null when unknown
     * @param momentsUs named instants (microseconds since the epoch) to report values at
     * @param executor runs the parts of large CSV files in parallel
     * @param parallelism cores to plan parts for
     * @param progress bytes consumed so far is added here; may be null
     * @throws EvidenceException when the file is not an msprof export, or a SQLite file cannot be opened
     * @throws IOException when the file cannot be read
     */
    public static MsprofFileResult read(Path file, String display, Integer folderDevice, Map<String, Long> momentsUs,
                                        Executor executor, int parallelism, AtomicLong progress)
            throws IOException, EvidenceException {
        return start(file, display, folderDevice, MsprofPass.of(momentsUs), executor, parallelism, progress).get();
    }

    /** A read that may still be running on the executor. */
    interface Pending {
        /** The file's result; null when the pass does not read the file's table. */
        MsprofFileResult get() throws IOException, EvidenceException;
    }

    /** Starts the read of file {@code i} of a batch. */
    @FunctionalInterface
    interface Start {
        Pending start(int i) throws IOException, EvidenceException;
    }

    /** Bytes of the regular files among {@code files} (what a progress bar counts). */
    static long totalBytes(List<Path> files) throws IOException {
        long total = 0;
        for (Path f : files) {
            total += Files.isRegularFile(f) ? Files.size(f) : 0;
        }
        return total;
    }

    /**
     * Starts the reads of several files on one pool, the largest file first: its parts take the
     * pool's first turns. In the order given, a small file read first (npu_mem beside
     * npu_module_mem) ran while the JIT was cold and then waited for its last part before the
     * next file began: ~35 ms of a 1 GiB export's ~0.5 s (issue 17, measured).
     *
     * @return one read per file, in the order given; one that could not start throws when asked for its result
     */
    static List<Pending> startLargestFirst(List<Path> files, Start start) throws IOException {
        long[] sizes = new long[files.size()];
        Integer[] order = new Integer[files.size()];
        for (int i = 0; i < files.size(); i++) {
            sizes[i] = totalBytes(List.of(files.get(i)));
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(sizes[b], sizes[a]));
        Pending[] started = new Pending[files.size()];
        for (int i : order) {
            try {
                started[i] = start.start(i);
            } catch (IOException e) {
                started[i] = () -> {
                    throw e;
                };
            } catch (EvidenceException e) {
                started[i] = () -> {
                    throw e;
                };
            }
        }
        return Arrays.asList(started);
    }

    static Pending start(Path file, String display, Integer folderDevice, MsprofPass pass,
                         Executor executor, int parallelism, AtomicLong progress)
            throws IOException, EvidenceException {
        return start(file, display, folderDevice, pass, executor, parallelism, progress,
                java.util.function.UnaryOperator.identity());
    }

    /** Every table at run-wide instants; {@code tune} adjusts the CSV scan (tests: fast path off, tiny parts). */
    static Pending start(Path file, String display, Integer folderDevice, Map<String, Long> momentsUs,
                         Executor executor, int parallelism, AtomicLong progress,
                         java.util.function.UnaryOperator<CsvFileScan> tune)
            throws IOException, EvidenceException {
        return start(file, display, folderDevice, MsprofPass.of(momentsUs), executor, parallelism, progress, tune);
    }

    /** As above for one pass. */
    static Pending start(Path file, String display, Integer folderDevice, MsprofPass pass,
                         Executor executor, int parallelism, AtomicLong progress,
                         java.util.function.UnaryOperator<CsvFileScan> tune)
            throws IOException, EvidenceException {
        Instants instants = Instants.of(pass);
        byte[] head = FileHead.of(file).head();
        Optional<EvidenceFormat> format = detect(head);
        if (format.isEmpty()) {
            throw new EvidenceException(display, 1, "not an msprof memory export: expected the header of npu_mem, "
                    + "npu_module_mem, memory_record, operator_memory or static_op_mem, or a SQLite file");
        }
        if (format.get() == FORMAT_DB) {
            CompletableFuture<MsprofFileResult> f = CompletableFuture.supplyAsync(() -> {
                try {
                    long size = Files.size(file);
                    MsprofFileResult r = readDb(file, display, instants, pass);
                    if (progress != null) {
                        progress.addAndGet(size);
                    }
                    return r;
                } catch (IOException | EvidenceException e) {
                    throw new CompletionException(e);
                }
            }, executor);
            return () -> await(f);
        }
        String header = CsvFileScan.headerLine(head);
        CsvLayout layout = CsvLayout.parse(header).orElseThrow();
        if (!pass.reads(layout.table())) {
            return () -> null;
        }
        long headerBytes = CsvFileScan.headerLength(head);
        CsvFileScan scan = tune.apply(CsvFileScan.of(file, layout, headerBytes, Files.size(file)));
        int dev = layout.deviceColumn() < 0 && folderDevice != null ? folderDevice : -1;
        boolean fromFolder = dev >= 0;
        CompletableFuture<Tally> tally = scan.scan(instants, dev, executor, parallelism, progress);
        return () -> {
            Tally t = await(tally);
            List<String> warnings = new ArrayList<>();
            for (String u : layout.unknown()) {
                warnings.add("line 1 (header): unknown column " + Quote.of(u) + " ignored");
            }
            String missing = new CsvRowHandler(layout, new Tally(Instants.NONE), dev).missingUnits();
            if (!missing.isEmpty()) {
                warnings.add("line 1 (header): no unit (KB or MB) in the header for " + missing
                        + "; those values are not read, as the unit is never guessed");
            }
            if (fromFolder) {
                warnings.add("no device column: device npu:" + dev + " taken from the folder name");
            }
            warnings.addAll(rowWarnings(t, ""));
            return new MsprofFileResult(display, FORMAT_CSV, EnumSet.of(layout.table()),
                    EnumSet.noneOf(MsprofTable.class), series(t, display, fromFolder),
                    operators(t, display, fromFolder), warnings, t.rows, t.emptyRows);
        };
    }

    private static MsprofFileResult readDb(Path file, String display, Instants instants, MsprofPass pass)
            throws IOException, EvidenceException {
        DbScan.Result r = DbScan.scan(file, display, instants, pass.tables());
        List<MsprofSeries> series = new ArrayList<>();
        List<MsprofOperatorTotals> ops = new ArrayList<>();
        List<String> warnings = new ArrayList<>(r.warnings());
        Set<MsprofTable> tables = EnumSet.noneOf(MsprofTable.class);
        long rows = 0;
        for (DbScan.TableTally tt : r.tables()) {
            tables.add(tt.table());
            for (MsprofSeries one : series(tt.tally(), display, false)) {
                if (tt.table() == MsprofTable.MEMORY_RECORD && one.peakBytes() == 0) {
                    // torch_npu's SQLite export writes 0 where its memory_record.csv leaves the cell
                    // empty (GE rows have no Total Active): a column that is 0 in every row of a
                    // component is taken as not recorded rather than printed as a measured 0
                    warnings.add("MEMORY_RECORD: " + one.quantity().contractName() + " of " + one.component()
                            + " is 0 in all " + one.samples() + " rows; taken as not recorded, not reported");
                    continue;
                }
                series.add(one);
            }
            ops.addAll(operators(tt.tally(), display, false));
            warnings.addAll(rowWarnings(tt.tally(), tt.table().dbTable() + " "));
            rows += tt.tally().rows;
        }
        if (tables.isEmpty() && pass.tables().containsAll(EnumSet.allOf(MsprofTable.class))) {
            warnings.add("no memory table (NPU_MEM, NPU_MODULE_MEM, MEMORY_RECORD, OP_MEMORY) in this database:"
                    + " memory evidence absent");
        }
        return new MsprofFileResult(display, FORMAT_DB, tables, r.absent(), series, ops, warnings, rows, 0);
    }

    private static <T> T await(CompletableFuture<T> f) throws IOException, EvidenceException {
        try {
            return f.join();
        } catch (CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof java.io.UncheckedIOException u) {
                throw u.getCause();
            }
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof EvidenceException ev) {
                throw ev;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }

    private static List<String> rowWarnings(Tally t, String prefix) {
        List<String> out = new ArrayList<>();
        for (Tally.RowWarning w : t.warnings) {
            out.add(prefix + "row " + w.row() + ": " + w.message());
        }
        if (t.droppedWarnings > 0) {
            out.add(prefix + t.droppedWarnings + " more row warnings not shown");
        }
        if (t.minusOne > 0) {
            out.add(prefix + "row " + t.firstMinusOneRow + ": " + t.minusOne + (t.minusOne == 1 ? " value" : " values")
                    + " of -1 (only frees were seen, per the CANN profiling guide) not counted as usage");
        }
        if (t.untimed > 0) {
            out.add(prefix + "row " + t.firstUntimedRow + ": timestamp " + t.firstUntimedText + " cannot be read as"
                    + " microseconds" + (t.untimed > 1 ? " (and in " + (t.untimed - 1) + " more rows)" : "")
                    + "; the values of these rows still count for the maxima, but for no moment or time window");
        }
        if (t.exponentTimes > 0) {
            out.add(prefix + "row " + t.firstExponentRow + ": timestamp '" + t.firstExponentText + "' is in exponent"
                    + " notation" + (t.exponentTimes > 1 ? " (and in " + (t.exponentTimes - 1) + " more rows)" : "")
                    + ", as a spreadsheet writes when it re-saves the file: times are known only to "
                    + step(t.exponentStepUs) + ", so peak times and values at moments are"
                    + " approximate; use the export as msprof wrote it for exact times");
        }
        return out;
    }

    /** A time step in microseconds as a person reads it: {@code 1E+10 us (about 2.8 hours)}. */
    private static String step(java.math.BigDecimal us) {
        double s = us.doubleValue() / 1e6;
        String plain = us.stripTrailingZeros().toString() + " us";
        if (s >= 3600) {
            return plain + String.format(java.util.Locale.ROOT, " (about %.1f hours)", s / 3600);
        }
        return s >= 1 ? plain + String.format(java.util.Locale.ROOT, " (about %.1f s)", s) : plain;
    }

    private static String deviceKey(int device) {
        return device < 0 ? null : "npu:" + device;
    }

    private static Long us(long ns) {
        return ns == SeriesStats.NONE ? null : Math.floorDiv(ns, 1000L);
    }

    private static List<MsprofSeries> series(Tally t, String file, boolean fromFolder) {
        List<MsprofSeries> out = new ArrayList<>();
        for (Map.Entry<Tally.Key, SeriesStats> e : t.series.entrySet()) {
            SeriesStats s = e.getValue();
            if (s.samples == 0) {
                continue;
            }
            Map<String, MsprofValueAt> at = new LinkedHashMap<>();
            String[] names = s.instants.names;
            for (int i = 0; i < names.length; i++) {
                if (s.atTsNs[i] != SeriesStats.NONE) {
                    at.put(names[i], new MsprofValueAt(names[i], s.instantsNs[i] / 1000L, s.atBytes[i],
                            s.atText(i), us(s.atTsNs[i]), file, s.atRow[i]));
                }
            }
            boolean timed = s.minTsNs != Long.MAX_VALUE;
            MsprofWindowPeak win = s.winPeak == SeriesStats.NONE ? null : new MsprofWindowPeak(s.instants.windowFrom,
                    s.windowFromNs / 1000L, s.winPeak, s.winText(), us(s.winTsNs), file, s.winRow);
            out.add(new MsprofSeries(e.getKey().quantity(), deviceKey(e.getKey().device()),
                    fromFolder && e.getKey().device() >= 0, e.getKey().component(), s.peak, s.peakText(), file,
                    s.peakRow, us(s.peakTsNs), s.samples, timed ? us(s.minTsNs) : null,
                    timed ? us(s.maxTsNs) : null, s.samples >= 2 && timed ? Long.valueOf(s.maxGapNs / 1000L) : null,
                    at, win));
        }
        return out;
    }

    private static List<MsprofOperatorTotals> operators(Tally t, String file, boolean fromFolder) {
        List<MsprofOperatorTotals> out = new ArrayList<>();
        for (Map.Entry<Integer, Tally.OperatorSums> e : t.operators.entrySet()) {
            Tally.OperatorSums o = e.getValue();
            out.add(new MsprofOperatorTotals(deviceKey(e.getKey()), fromFolder && e.getKey() >= 0, o.total,
                    o.unreleased, o.count, file, o.lastRow));
        }
        return out;
    }
}

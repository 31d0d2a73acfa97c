package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.ReadOutcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reader for msprof and torch_npu profiler memory exports, CSV ({@code msprof-csv}) and SQLite
 * ({@code msprof-db}). Each series is summarised as the contract asks: one observation per
 * quantity, device and component, {@code bytes} = the maximum, {@code line} = its data row
 * (CSV, header excluded) or rowid (SQLite), with {@code samples} and {@code timestamp_us}.
 * CSV units come from the header ({@code (KB)} = KiB, {@code (MB)} = MiB); SQLite amounts are
 * bytes and times nanoseconds. See {@link MsprofTable} for the layouts followed.
 */
public final class MsprofReader implements EvidenceReader {

    /**
     * Links what the readers' first rows need, on a daemon thread, so that it happens while the
     * command line is parsed: the word reads' {@code VarHandle}, where they use it (see
     * {@link Swar#UNSAFE}), spins ~16 method-handle classes at its first use (the class-data
     * archive cannot hold them on JDK 17), ~10 ms that the reader threads otherwise wait for at
     * their start (issue 17, measured). A class of its own rather than a lambda: the archive's
     * training run never comes here, so a lambda was spun on the main thread at every start.
     */
    public static void prepareInBackground() {
        Thread t = new Thread(new Prepare(), "msprof-prepare");
        t.setDaemon(true);
        t.start();
    }

    private static final class Prepare implements Runnable {
        @Override
        public void run() {
            Swar.word(new byte[16], 0);
        }
    }

    @Override
    public Optional<EvidenceFormat> detect(FileHead head) {
        return MsprofFiles.detect(head.head());
    }

    /**
     * @throws EvidenceException when a SQLite file cannot be opened (corrupt, not a database)
     */
    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head)
            throws IOException, EvidenceException {
        ReadOutcome only = readTogether(List.of(file), List.of(displayPath)).get(0);
        if (only.failure() instanceof EvidenceException e) {
            throw e;
        }
        if (only.failure() instanceof IOException e) {
            throw e;
        }
        return only.file();
    }

    /**
     * Reads several msprof files (CSV or SQLite) at once, on one pool of one thread per core with
     * one progress bar, the largest file's parts first ({@link MsprofFiles#startLargestFirst}).
     *
     * @param files the files
     * @param displayPaths how each is named in results and messages
     * @return one outcome per file, in the order given
     */
    public static List<ReadOutcome> readTogether(List<Path> files, List<String> displayPaths) throws IOException {
        String label = files.size() == 1 ? displayPaths.get(0) : files.size() + " msprof files";
        try (MsprofExecutor ex = MsprofExecutor.create()) {
            return ex.withProgress(MsprofFiles.totalBytes(files), label, progress -> {
                List<MsprofFiles.Pending> reads = MsprofFiles.startLargestFirst(files, i -> MsprofFiles.start(files.get(i),
                        displayPaths.get(i), null, MsprofPass.of(Map.of()), ex.executor(), ex.parallelism(), progress));
                List<ReadOutcome> out = new ArrayList<>();
                for (int i = 0; i < files.size(); i++) {
                    try {
                        MsprofFileResult r = reads.get(i).get();
                        refuseEmpty(r, displayPaths.get(i));
                        out.add(new ReadOutcome(toEvidence(r), null));
                    } catch (IOException | EvidenceException e) {
                        out.add(new ReadOutcome(null, e));
                    }
                }
                return out;
            });
        } catch (EvidenceException e) {
            throw new IllegalStateException("every file's exception is kept in its outcome", e);
        }
    }

    /**
     * A CSV with its table's header and not one data row is empty (the help's exit 2), not a
     * file of "0 observations": the profiler stopped before sampling, the table was not
     * collected, or every row was lost to NUL bytes. Only CSV: a SQLite export without the
     * memory tables is a documented, ordinary case (msprof_*.db often holds none of them).
     */
    private static void refuseEmpty(MsprofFileResult r, String displayPath) throws EvidenceException {
        Optional<String> empty = emptyReason(r);
        if (empty.isPresent()) {
            throw new EvidenceException(displayPath, 1, empty.get());
        }
    }

    /** Why a CSV result holds nothing (see {@link #refuseEmpty}); empty when it holds rows. */
    static Optional<String> emptyReason(MsprofFileResult r) {
        if (MsprofFiles.FORMAT_CSV != r.format() || r.rows() > r.emptyRows()
                || !r.series().isEmpty() || !r.operators().isEmpty()) {
            return Optional.empty();
        }
        String table = r.tables().stream().findFirst().map(MsprofTable::csvStem).orElse("msprof");
        String rows = r.rows() == 0 ? "no rows after it"
                : r.rows() + (r.rows() == 1 ? " row after it that is" : " rows after it, all")
                        + " blank or holding NUL bytes (a profiler killed mid-write or a file system recovered after a crash)";
        return Optional.of("the file has the " + table + " header and " + rows
                + ": no data rows, so nothing to read; export the profile again (msprof --export=on"
                + " or torch_npu's analyse), or leave this file out");
    }

    /** The evidence-contract view of a file result. */
    public static EvidenceFile toEvidence(MsprofFileResult r) {
        List<Observation> obs = new ArrayList<>();
        for (MsprofSeries s : r.series()) {
            obs.add(Observation.bytes(s.quantity().quantity(), s.peakBytes(), line(s.peakRow()), s.peakText())
                    .in(Context.builder().device(s.device()).component(s.component()).samples(s.samples())
                            .timestampUs(s.peakTimestampUs()).build()));
        }
        for (MsprofOperatorTotals o : r.operators()) {
            String text = "sum of " + o.count() + " rows";
            Context counted = Context.builder().device(o.device()).samples(o.count()).build();
            obs.add(Observation.bytes(Quantity.OPERATOR_BYTES_TOTAL, o.bytesTotal(), line(o.lastRow()), text)
                    .in(counted));
            obs.add(Observation.bytes(Quantity.OPERATOR_BYTES_UNRELEASED, o.bytesUnreleased(), line(o.lastRow()),
                    text + " without a release time").in(counted));
            obs.add(Observation.value(Quantity.OPERATOR_COUNT, o.count(), line(o.lastRow()), Long.toString(o.count()))
                    .in(Context.device(o.device())));
        }
        return new EvidenceFile(r.file(), r.format(), obs, r.warnings());
    }

    private static int line(long row) {
        return (int) Math.min(Integer.MAX_VALUE, row);
    }
}

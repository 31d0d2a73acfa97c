package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
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
        MsprofFileResult r;
        try (MsprofExecutor ex = MsprofExecutor.create()) {
            r = ex.withProgress(head.size(), displayPath,
                    progress -> MsprofFiles.read(file, displayPath, null, Map.of(), ex.executor(),
                            ex.parallelism(), progress));
        }
        refuseEmpty(r, displayPath);
        return toEvidence(r);
    }

    /**
     * A CSV with its table's header and not one data row is empty (the help's exit 2), not a
     * file of "0 observations": the profiler stopped before sampling, the table was not
     * collected, or every row was lost to NUL bytes. Only CSV: a SQLite export without the
     * memory tables is a documented, ordinary case (msprof_*.db often holds none of them).
     */
    private static void refuseEmpty(MsprofFileResult r, String displayPath) throws EvidenceException {
        if (MsprofFiles.FORMAT_CSV != r.format() || r.rows() > r.emptyRows()
                || !r.series().isEmpty() || !r.operators().isEmpty()) {
            return;
        }
        String table = r.tables().stream().findFirst().map(MsprofTable::csvStem).orElse("msprof");
        String rows = r.rows() == 0 ? "no rows after it"
                : r.rows() + (r.rows() == 1 ? " row after it that is" : " rows after it, all")
                        + " blank or holding NUL bytes (a profiler killed mid-write or a file system recovered after a crash)";
        throw new EvidenceException(displayPath, 1, "the file has the " + table + " header and " + rows
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

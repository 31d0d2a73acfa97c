package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
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
    public Optional<String> detect(FileHead head) {
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
        return toEvidence(r);
    }

    /** The evidence-contract view of a file result. */
    public static EvidenceFile toEvidence(MsprofFileResult r) {
        List<Observation> obs = new ArrayList<>();
        for (MsprofSeries s : r.series()) {
            obs.add(Observation.bytes(s.quantity().contractName(), s.peakBytes(), line(s.peakRow()), s.peakText())
                    .withDevice(s.device())
                    .withComponent(s.component())
                    .withSamples(s.samples())
                    .withTimestampUs(s.peakTimestampUs()));
        }
        for (MsprofOperatorTotals o : r.operators()) {
            String text = "sum of " + o.count() + " rows";
            obs.add(Observation.bytes(MsprofQuantity.OPERATOR_BYTES_TOTAL.contractName(), o.bytesTotal(),
                    line(o.lastRow()), text).withDevice(o.device()).withSamples(o.count()));
            obs.add(Observation.bytes(MsprofQuantity.OPERATOR_BYTES_UNRELEASED.contractName(), o.bytesUnreleased(),
                    line(o.lastRow()), text + " without a release time").withDevice(o.device()).withSamples(o.count()));
            obs.add(Observation.value(MsprofQuantity.OPERATOR_COUNT.contractName(), o.count(), line(o.lastRow()),
                    Long.toString(o.count())).withDevice(o.device()));
        }
        return new EvidenceFile(r.file(), r.format(), obs, r.warnings());
    }

    private static int line(long row) {
        return (int) Math.min(Integer.MAX_VALUE, row);
    }
}

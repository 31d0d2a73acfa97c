package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.EvidenceException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads many msprof / torch_npu memory files at once: every file in one streaming pass, the
 * files (and the parts of large CSV files) in parallel on one pool of one thread per core,
 * slices of one table joined in order. Memory stays bounded by the number of series, not rows.
 * A progress bar appears on a terminal when reading takes more than a second or two.
 */
public final class MsprofAnalyzer {

    private MsprofAnalyzer() {
    }

    /**
     * Analyses the given files.
     *
     * @param inputs files, e.g. from {@link MsprofExportWalker} or {@link MsprofInput#of}
     * @param momentsUs named instants (microseconds since the Unix epoch) at which every series'
     *     value is reported (last sample at or before); may be empty
     * @return the joined summary; a file that cannot be read becomes a warning in it, so the
     *     other files still count
     * @throws IOException only when the pool itself fails
     */
    public static MsprofSummary analyze(List<MsprofInput> inputs, Map<String, Long> momentsUs) throws IOException {
        return analyze(inputs, MsprofPass.of(momentsUs));
    }

    /**
     * Analyses the given files as one pass asks: its instants (run-wide and per device) and
     * its tables; files of other tables are left out of the summary.
     */
    public static MsprofSummary analyze(List<MsprofInput> inputs, MsprofPass pass) throws IOException {
        List<Path> paths = inputs.stream().map(MsprofInput::path).toList();
        try (MsprofExecutor ex = MsprofExecutor.create()) {
            try {
                return ex.withProgress(MsprofFiles.totalBytes(paths), inputs.size() + " msprof files", progress -> {
                    List<MsprofFiles.Pending> reads = MsprofFiles.startLargestFirst(paths, i -> MsprofFiles.start(
                            paths.get(i), paths.get(i).toString(), inputs.get(i).folderDevice(), pass, ex.executor(),
                            ex.parallelism(), progress));
                    List<String> warnings = new ArrayList<>();
                    Map<String, List<MsprofFileResult>> groups = new LinkedHashMap<>();
                    for (int i = 0; i < inputs.size(); i++) {
                        MsprofInput in = inputs.get(i);
                        try {
                            MsprofFileResult r = reads.get(i).get();
                            if (r != null) {
                                // a header without rows: said, as evidence refuses it (it was left out without a word)
                                MsprofReader.emptyReason(r).ifPresent(w -> warnings.add(in.path() + ":1: " + w));
                                groups.computeIfAbsent(in.sliceGroup(), k -> new ArrayList<>()).add(r);
                            }
                        } catch (EvidenceException | IOException e) {
                            warnings.add(in.path() + ": " + e.getMessage());
                        }
                    }
                    return MsprofSummary.of(groups, warnings);
                });
            } catch (EvidenceException e) {
                throw new IOException(e.getMessage(), e);
            }
        }
    }
}

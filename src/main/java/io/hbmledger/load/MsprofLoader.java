package io.hbmledger.load;

import io.hbmledger.ledger.MsprofEvidence;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the msprof entries of a run into the ledger's {@link MsprofEvidence}: groups them into
 * profiling outputs ({@link MsprofExportGroups}) and reads each in its two passes
 * ({@link MsprofExportReader}: npu_mem for the device peaks, then every table at the run's
 * instants and those peaks). The ledger gets finished summaries and does no reading.
 */
final class MsprofLoader {

    private MsprofLoader() {
    }

    /**
     * @param items the entries, in run order
     * @param instants the run's instants and where the ready one came from
     * @param baseDir the run directory (stripped from shown file names), or null
     * @throws IOException when a file cannot be read or resolves outside the run directory
     */
    static MsprofEvidence load(List<MsprofItem> items, MsprofInstants instants, Path baseDir) throws IOException {
        List<String> notes = new ArrayList<>(instants.warnings());
        MsprofExportGroups grouping = new MsprofExportGroups(baseDir, notes);
        for (MsprofItem it : items) {
            grouping.add(it);
        }
        List<MsprofEvidence.Export> exports = new ArrayList<>();
        for (MsprofExportGroups.Group g : grouping.groups()) {
            exports.add(new MsprofEvidence.Export(g.name(), g.kind(), g.rankIds(),
                    MsprofExportReader.read(g.inputs(), instants.momentsUs())));
        }
        return new MsprofEvidence(exports, instants.momentsUs(), instants.readyFrom(), instants.readyHow(),
                baseDir == null ? null : baseDir.toString(), notes);
    }
}

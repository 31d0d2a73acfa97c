package io.hbmledger.load;

import io.hbmledger.evidence.msprof.MsprofAnalyzer;
import io.hbmledger.evidence.msprof.MsprofInput;
import io.hbmledger.evidence.msprof.MsprofPass;
import io.hbmledger.evidence.msprof.MsprofPeakMoments;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.evidence.msprof.MsprofTable;
import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * Reads one export so that every series has a value at the run's instants and at its device's
 * peaks (the whole run's, and the one at or after ready: every series also keeps its maximum
 * from ready on). Pass 1 reads npu_mem alone (a few percent of an export: two rows per device
 * and sample, against ~75 for npu_module_mem) to find each device's peak instant; pass 2 reads
 * every table at the run's instants plus those peaks ({@link MsprofPeakMoments}), so
 * npu_module_mem (HCCL, RUNTIME, APP, ...) is known at the peak too, and the big files
 * (npu_module_mem, and the event logs memory_record and operator_memory, which in the corpus's
 * torch_npu export are larger than npu_module_mem) are read exactly once. Without a device peak
 * (no npu_mem Device rows with times) pass 2 is the only full pass.
 */
final class MsprofExportReader {

    private MsprofExportReader() {
    }

    /**
     * @param inputs the export's files
     * @param momentsUs the run's instants, microseconds since the Unix epoch, by name
     * @throws IOException when a file cannot be read
     */
    static MsprofSummary read(List<MsprofInput> inputs, Map<String, Long> momentsUs) throws IOException {
        // every series also keeps its maximum from ready on: the peak under load, when start-up went higher
        MsprofPass run = MsprofPass.of(momentsUs).withWindowFrom(momentsUs.containsKey("ready") ? "ready" : null);
        MsprofSummary npuMem = MsprofAnalyzer.analyze(inputs, run.onlyTables(EnumSet.of(MsprofTable.NPU_MEM)));
        return MsprofAnalyzer.analyze(inputs, MsprofPeakMoments.addPeaks(run, npuMem));
    }
}

package io.hbmledger.load;

import static io.hbmledger.load.MsprofPeakExports.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.msprof.MsprofPeakMoments;
import io.hbmledger.evidence.msprof.MsprofQuantity;
import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.testing.Corpus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * msprof read by the loading layer in its two passes (npu_mem for each device's peak, then every
 * table at the run's instants and those peaks), on the simulated exports of
 * {@link MsprofPeakExports} and on the corpus's torch_npu SQLite export.
 */
class MsprofLoaderTest {

    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private static MsprofEvidence load(Path export, long readyUs) throws Exception {
        MsprofInstants at = new MsprofInstants(Map.of("ready", readyUs), "test", MsprofInstants.INSTANT_READY, List.of());
        return MsprofLoader.load(List.of(new MsprofItem(export, export.getFileName().toString())), at, null);
    }

    @Test
    void everyModuleSeriesHasAValueAtTheDevicePeak() throws Exception {
        MsprofEvidence m = load(MsprofPeakExports.exportA(dir), T0 + 450_000L);
        assertThat(m.exports()).singleElement().satisfies(e -> assertThat(e.name()).isEqualTo("PROF_000001_A"));
        MsprofSummary.DeviceMemory d = m.exports().get(0).summary().device("npu:0");
        String peak = MsprofPeakMoments.peak("npu:0");
        // the device peak is k = 7 at T0 + 700 ms; the module sample before it is k = 7 (T0 + 698 ms)
        assertThat(d.wholeDevice().orElseThrow().peakTimestampUs()).isEqualTo(T0 + 700_000L);
        assertThat(d.module("APP").flatMap(s -> s.at(peak)).orElseThrow().bytes()).isEqualTo(3000 * MIB);
        assertThat(d.module("RUNTIME").flatMap(s -> s.at(peak)).orElseThrow().bytes()).isEqualTo(190 * MIB);
        assertThat(d.module("HCCL").flatMap(s -> s.at(peak)).orElseThrow().timestampUs()).isEqualTo(T0 + 698_000L);
        for (MsprofSeries s : d.modules().values()) {
            assertThat(s.at(peak)).as(s.component()).isPresent();
            assertThat(s.at("ready")).as(s.component()).isPresent();
        }
        // the run-wide instant stays on every series; a device's own peak is kept on its series only
        assertThat(d.wholeDevice().orElseThrow().at(peak).orElseThrow().bytes()).isEqualTo(51600 * MIB);
        // ready at T0 + 450 ms: the last module sample before it is k = 4, APP 1500 MiB, RUNTIME 90 MiB
        assertThat(d.module("APP").flatMap(s -> s.at("ready")).orElseThrow().bytes()).isEqualTo(1500 * MIB);
        assertThat(d.module("RUNTIME").flatMap(s -> s.at("ready")).orElseThrow().bytes()).isEqualTo(90 * MIB);
        assertThat(m.readyUs()).contains(T0 + 450_000L);
    }

    @Test
    void aStartUpSpikeLeavesThePeakAfterReadyItsOwnMomentOnEveryModule() throws Exception {
        MsprofSummary.DeviceMemory d = load(MsprofPeakExports.exportB(dir), T0 + 450_000L)
                .exports().get(0).summary().device("npu:0");
        // whole run: the spike at k = 1 (Device 53000 MiB, module APP 4500); after ready: k = 7
        assertThat(d.wholeDevice().orElseThrow().peakTimestampUs()).isEqualTo(T0 + 100_000L);
        assertThat(d.module("APP").flatMap(s -> s.at(MsprofPeakMoments.peak("npu:0"))).orElseThrow().bytes())
                .isEqualTo(4500 * MIB);
        String afterReady = MsprofPeakMoments.peakAfterReady("npu:0");
        assertThat(d.wholeDevice().flatMap(s -> s.at(afterReady)).orElseThrow().bytes()).isEqualTo(51600 * MIB);
        assertThat(d.module("APP").flatMap(s -> s.at(afterReady)).orElseThrow().bytes()).isEqualTo(3000 * MIB);
    }

    /**
     * The corpus's torch_npu SQLite export, loaded as an evidence file: truth.json gives npu:0
     * HCCL module_reserved_peak 423690240 bytes, RUNTIME 96714752, device_hbm_peak 2468032512.
     */
    @Test
    void theCorpusTorchNpuExportReachesTheEvidenceSetAsOneMsprofExport() throws Exception {
        Path db = Corpus.file("msprof/msinsight_level1_rank0_ascend_pytorch_profiler_0.db");
        List<String> warnings = new ArrayList<>();
        MsprofEvidence m = new EvidenceLoader(warnings::add).load(LoadRequest.of(db)).evidence().msprof();
        assertThat(m.exports()).singleElement().satisfies(e -> assertThat(e.kind()).isEqualTo("files"));
        MsprofSummary s = m.exports().get(0).summary();
        assertThat(s.series(MsprofQuantity.MODULE_RESERVED_PEAK, "npu:0", "HCCL").orElseThrow().peakBytes())
                .isEqualTo(423_690_240L);
        assertThat(s.series(MsprofQuantity.MODULE_RESERVED_PEAK, "npu:0", "RUNTIME").orElseThrow().peakBytes())
                .isEqualTo(96_714_752L);
        MsprofSeries device = s.series(MsprofQuantity.DEVICE_HBM_PEAK, "npu:0", null).orElseThrow();
        assertThat(device.peakBytes()).isEqualTo(2_468_032_512L);
        // the first pass found the peak, and the full pass read the device at that moment: its own maximum
        assertThat(device.at(MsprofPeakMoments.peak("npu:0")).orElseThrow().bytes()).isEqualTo(2_468_032_512L);
        // no --instant: the ledger is told how to give the ready instant
        assertThat(m.readyFrom()).isNull();
        assertThat(m.readyHow()).isEqualTo(MsprofInstants.INSTANT_READY);
    }
}

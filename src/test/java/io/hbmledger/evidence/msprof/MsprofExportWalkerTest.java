package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Folder layouts of msprof and torch_npu outputs, built by hand in the real files' column layouts. */
class MsprofExportWalkerTest {

    @TempDir
    Path dir;

    private Path write(String rel, String text) throws Exception {
        Path p = dir.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    @Test
    void rankIdsFromTorchNpuFolderNames() {
        assertThat(MsprofExportWalker.rankIds("dp0_tp1_rank1_12345_20250109_ascend_pt"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("dp", 0, "tp", 1, "rank", 1));
        assertThat(MsprofExportWalker.rankIds("worker-ep3-pp0_host_ascend_pt"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("ep", 3, "pp", 0));
        assertThat(MsprofExportWalker.rankIds("localhost_1440043_20250109_ascend_pt")).isEmpty();
    }

    @Test
    void slicesAreJoinedAndDeviceFromFolderIsMarked() throws Exception {
        String moduleHeader = "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n";
        write("PROF_000001_X/mindstudio_profiler_output/npu_module_mem_20250109_slice_0.csv", moduleHeader
                + "0,HCCL,1000.0\t,100,NPU:0\n0,HCCL,1020.0\t,400,NPU:0\n");
        write("PROF_000001_X/mindstudio_profiler_output/npu_module_mem_20250109_slice_1.csv", moduleHeader
                + "0,HCCL,1040.0\t,300,NPU:0\n0,HCCL,1200.0\t,500,NPU:0\n");
        // the same table under device_0/summary is a duplicate of the summary above: skipped
        write("PROF_000001_X/device_0/summary/npu_module_mem_0_1.csv", moduleHeader + "0,HCCL,1000.0\t,999,NPU:0\n");
        // a torch_npu memory_record without a device column, under device_5: device from the folder
        write("PROF_000001_X/device_5/summary/memory_record_0.csv",
                "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB)\nPTA,1000.0\t,1.0,2.0\n");
        List<MsprofExport> exports = MsprofExportWalker.find(dir);
        assertThat(exports).hasSize(1);
        MsprofExport e = exports.get(0);
        assertThat(e.kind()).isEqualTo("msprof");
        assertThat(e.inputs()).hasSize(3);
        assertThat(e.skipped()).singleElement().asString().contains("device_0/summary/npu_module_mem_0_1.csv");

        MsprofSummary s = MsprofAnalyzer.analyze(e.inputs(), Map.of("ready", 1030L));
        MsprofSeries hccl = s.device("npu:0").module("HCCL").orElseThrow();
        // joined: 4 samples, max 500 KiB in slice 1 row 2 at 1200 us; gaps 20, 20, 160 us
        assertThat(hccl.samples()).isEqualTo(4);
        assertThat(hccl.peakBytes()).isEqualTo(500L * 1024);
        assertThat(hccl.peakFile()).endsWith("_slice_1.csv");
        assertThat(hccl.peakRow()).isEqualTo(2);
        assertThat(hccl.maxGapUs()).isEqualTo(160L);
        assertThat(hccl.at("ready").orElseThrow().bytes()).isEqualTo(400L * 1024);
        assertThat(hccl.deviceFromFolder()).isFalse();

        MsprofSummary.MemoryRecordComponent pta = s.device("npu:5").record("PTA").orElseThrow();
        assertThat(pta.reserved().deviceFromFolder()).isTrue();
        // 2 MiB reserved - 1 MiB allocated at the last sample before 1030 us
        assertThat(pta.cachedAt("ready")).contains(1L << 20);
        assertThat(s.devices()).containsExactly("npu:0", "npu:5");
        assertThat(s.warnings()).anyMatch(w -> w.contains("device npu:5 taken from the folder name"));
    }

    @Test
    void msprofSliceNamingWithTheTimestampLast() throws Exception {
        String header = "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n";
        write("PROF_2/mindstudio_profiler_output/npu_mem_slice_1_20250109091803.csv", header
                + "3,Device,0,50,50,2000.000\t\n");
        write("PROF_2/mindstudio_profiler_output/npu_mem_slice_0_20250109091803.csv", header
                + "3,Device,0,70,70,1000.000\t\n3,APP,0,20,20,1000.000\t\n");
        MsprofExport e = MsprofExportWalker.find(dir).get(0);
        assertThat(e.inputs()).extracting(MsprofInput::slice).containsExactly(0, 1);
        assertThat(e.inputs()).extracting(MsprofInput::sliceGroup).containsOnly(e.inputs().get(0).sliceGroup());
        MsprofSummary s = MsprofAnalyzer.analyze(e.inputs(), Map.of());
        // slices joined: device series 70 KiB (slice 0 row 1) then 50 KiB: 2 samples, max 71680 B
        MsprofSeries dev = s.device("npu:3").wholeDevice().orElseThrow();
        assertThat(dev.samples()).isEqualTo(2);
        assertThat(dev.peakBytes()).isEqualTo(70L * 1024);
        assertThat(dev.peakFile()).contains("slice_0");
        assertThat(s.device("npu:3").app().orElseThrow().peakBytes()).isEqualTo(20L * 1024);
    }

    @Test
    void realTorchNpuDatabaseThroughTheApi() throws Exception {
        Path db = Corpus.file("msprof/msinsight_level1_rank0_ascend_pytorch_profiler_0.db");
        MsprofSummary s = MsprofAnalyzer.analyze(List.of(MsprofInput.of(db)), Map.of());
        MsprofSummary.DeviceMemory d = s.device("npu:0");
        // values as in MsprofReaderCorpusTest (sqlite3 over the same file)
        assertThat(d.module("HCCL").orElseThrow().peakBytes()).isEqualTo(423_690_240L);
        assertThat(d.module("RUNTIME").orElseThrow().peakBytes()).isEqualTo(96_714_752L);
        assertThat(d.app().orElseThrow().peakBytes()).isEqualTo(2_216_402_944L);
        assertThat(d.wholeDevice().orElseThrow().peakBytes()).isEqualTo(2_468_032_512L);
        // NPU_MEM app rows 1..14 are 20 ms apart: 1736410576286237200 .. 1736410576534140200 ns
        assertThat(d.app().orElseThrow().meanIntervalUs().orElseThrow()).isBetween(19_000.0, 19_100.0);
        assertThat(d.record("GE").orElseThrow().reserved().peakBytes()).isEqualTo(78_381_056L);
        assertThat(d.record("APP")).isEmpty();
        assertThat(s.processLevel()).isEmpty();
        assertThat(s.tables()).contains(MsprofTable.NPU_MEM, MsprofTable.NPU_MODULE_MEM);
    }
}

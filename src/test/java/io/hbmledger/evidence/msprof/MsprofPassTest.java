package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One pass's choices: instants that belong to one device's series only (a device's own peak),
 * and which tables are read (the loader's first pass reads npu_mem alone).
 */
class MsprofPassTest {

    @TempDir
    Path dir;

    /**
     * Two devices' HCCL every 20 us from 1000 us: npu:0 writes 100, 110, 120, ... KB, npu:1
     * 500, 510, ... KB (sample i = base + 10 i). npu:1's peak instant 1045 us falls after sample
     * i = 2 (1040 us): npu:1 at it is 520 KB, data row 6 (rows alternate npu:0, npu:1).
     */
    @Test
    void aDevicesOwnInstantIsKeptOnItsSeriesOnlyOnEveryPath() throws Exception {
        StringBuilder sb = new StringBuilder("Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n");
        for (int i = 0; i < 10; i++) {
            long ts = 1000 + 20L * i;
            sb.append("0,HCCL,").append(ts).append(".000\t,").append(100 + 10 * i).append(",NPU:0\n");
            sb.append("1,HCCL,").append(ts).append(".000\t,").append(500 + 10 * i).append(",NPU:1\n");
        }
        Path p = dir.resolve("npu_module_mem_0.csv");
        Files.writeString(p, sb, StandardCharsets.US_ASCII);
        MsprofPass pass = MsprofPass.of(Map.of("ready", 1030L)).withDeviceMoment("peak@npu:1", "npu:1", 1045L);
        for (UnaryOperator<CsvFileScan> tune : List.<UnaryOperator<CsvFileScan>>of(UnaryOperator.identity(),
                s -> s.withFastPath(false), s -> s.withPartBytes(97))) {
            MsprofFileResult r = TunedRead.read(p, "m.csv", pass, 2, tune);
            MsprofSeries d0 = r.series().stream().filter(s -> "npu:0".equals(s.device())).findFirst().orElseThrow();
            MsprofSeries d1 = r.series().stream().filter(s -> "npu:1".equals(s.device())).findFirst().orElseThrow();
            assertThat(d0.at("peak@npu:1")).isEmpty();
            // ready 1030 us: sample i = 1 (1020 us) on both devices: 110 KB row 3, 510 KB row 4
            assertThat(d0.at("ready").orElseThrow().bytes()).isEqualTo(110L * 1024);
            assertThat(d0.at("ready").orElseThrow().row()).isEqualTo(3);
            assertThat(d1.at("ready").orElseThrow().bytes()).isEqualTo(510L * 1024);
            MsprofValueAt peak = d1.at("peak@npu:1").orElseThrow();
            assertThat(peak.bytes()).isEqualTo(520L * 1024);
            assertThat(peak.row()).isEqualTo(6);
            assertThat(peak.timestampUs()).isEqualTo(1040L);
        }
    }

    @Test
    void aPassOfNpuMemAloneSkipsTheOtherTablesOfCsvAndSqliteFiles() throws Exception {
        Path mem = dir.resolve("npu_mem_0.csv");
        Files.writeString(mem, "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n0,device,0,100,100,1000.000\t\n");
        Path mod = dir.resolve("npu_module_mem_0.csv");
        Files.writeString(mod, "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n0,HCCL,1000.0\t,7,NPU:0\n");
        Path db = Corpus.file("msprof/msinsight_level1_rank0_ascend_pytorch_profiler_0.db");
        MsprofSummary s = MsprofAnalyzer.analyze(List.of(MsprofInput.of(mem), MsprofInput.of(mod), MsprofInput.of(db)),
                MsprofPass.of(Map.of()).onlyTables(EnumSet.of(MsprofTable.NPU_MEM)));
        // npu_mem of both files; the module CSV is not in the summary, the database gives NPU_MEM only
        assertThat(s.series()).extracting(MsprofSeries::quantity).containsOnly(MsprofQuantity.DEVICE_HBM_PEAK,
                MsprofQuantity.APP_HBM_PEAK);
        assertThat(s.files()).extracting(MsprofFileResult::file).containsExactly(mem.toString(), db.toString());
        // the database's NPU_MEM device rows 15..28: maximum 2468032512 B first at rowid 18
        MsprofSeries dev = s.series().stream().filter(x -> x.quantity() == MsprofQuantity.DEVICE_HBM_PEAK
                && x.peakFile().equals(db.toString())).findFirst().orElseThrow();
        assertThat(dev.peakBytes()).isEqualTo(2_468_032_512L);
        assertThat(dev.peakRow()).isEqualTo(18);
        assertThat(s.files().get(1).absent()).isEmpty();
        assertThat(s.warnings()).noneMatch(w -> w.contains("no memory table"));
    }
}

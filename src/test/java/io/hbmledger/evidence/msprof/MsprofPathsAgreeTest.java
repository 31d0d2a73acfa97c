package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fast path and the general path, and one part against many parts, must give the same
 * summary (peaks, rows, times, gaps, values at moments) on the real files and on a seeded,
 * irregular hand-made file.
 */
class MsprofPathsAgreeTest {

    @TempDir
    Path dir;

    private static MsprofFileResult read(Path p, Map<String, Long> moments, UnaryOperator<CsvFileScan> tune)
            throws Exception {
        return read(p, MsprofPass.of(moments), tune);
    }

    private static MsprofFileResult read(Path p, MsprofPass pass, UnaryOperator<CsvFileScan> tune) throws Exception {
        return TunedRead.read(p, p.getFileName().toString(), pass, 3, tune);
    }

    @ParameterizedTest
    @ValueSource(strings = {"msinsight_level1_rank0_npu_module_mem.csv", "msinsight_level1_rank0_memory_record.csv",
        "msinsight_server_rank0_npu_module_mem_crlf.csv", "msinsight_server_rank0_memory_record_5col.csv",
        "msinsight_level1_rank0_operator_memory.csv", "msinsight_server_rank1_static_op_mem.csv"})
    void realFilesGiveTheSameSummaryOnEveryPath(String name) throws Exception {
        Path p = Corpus.file("msprof/" + name);
        // a moment in the middle of the level1 capture (1736408883657086 .. 1736408883907443 us)
        // (and the maxima from that moment on)
        MsprofPass moments = MsprofPass.of(Map.of("mid", 1_736_408_883_750_000L)).withWindowFrom("mid");
        MsprofFileResult general = read(p, moments, s -> s.withFastPath(false));
        MsprofFileResult fast = read(p, moments, UnaryOperator.identity());
        MsprofFileResult parts = read(p, moments, s -> s.withPartBytes(997));
        assertThat(fast).isEqualTo(general);
        assertThat(parts).isEqualTo(general);
    }

    @Test
    void irregularRowsGiveTheSameSummaryOnEveryPath() throws Exception {
        java.util.Random r = new java.util.Random(42);
        StringBuilder sb = new StringBuilder("Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n");
        String[] comps = {"APP", "HCCL", "RUNTIME", "SLOG"};
        for (int i = 0; i < 5000; i++) {
            int dev = r.nextInt(3);
            String c = comps[r.nextInt(comps.length)];
            long ts = 1_000_000L + i * 20_000L;
            String v = switch (r.nextInt(12)) {
                case 0 -> "-1";
                case 1 -> "";
                case 2 -> " 12.5";
                case 3 -> "1e3";
                case 4 -> "abc";
                default -> Long.toString(r.nextInt(1_000_000)) + (r.nextBoolean() ? ".25" : "");
            };
            String devCell = switch (r.nextInt(10)) {
                case 0 -> "host";
                case 1 -> "npu:" + dev;
                default -> "NPU:" + dev;
            };
            String comp = r.nextInt(20) == 0 ? "\"" + c + "\"" : c;
            sb.append(r.nextInt(15) == 0 ? "x" : Integer.toString(dev)).append(',').append(comp).append(',')
                    .append(ts).append(".123\t,").append(v).append(',').append(devCell)
                    .append(r.nextInt(7) == 0 ? "\r\n" : "\n");
        }
        sb.append("1,APP,99");
        Path p = dir.resolve("npu_module_mem_1.csv");
        Files.writeString(p, sb, StandardCharsets.US_ASCII);
        Map<String, Long> moments = Map.of("ready", 1_000_000L + 2_500 * 20_000L, "early", 1_000_000L);
        MsprofPass pass = MsprofPass.of(moments).withWindowFrom("ready");
        MsprofFileResult general = read(p, pass, s -> s.withFastPath(false));
        MsprofFileResult fast = read(p, pass, UnaryOperator.identity());
        MsprofFileResult parts = read(p, pass, s -> s.withPartBytes(4093));
        assertThat(general.series()).isNotEmpty();
        // maxima after ready (row 2501 on) are part of what must agree
        assertThat(general.series()).allMatch(s -> s.windowPeak() != null && s.windowPeak().row() > 2500);
        assertThat(fast.series()).isEqualTo(general.series());
        assertThat(fast.warnings()).isEqualTo(general.warnings());
        // the part joins keep series, values at moments and rows; only warnings beyond the first 20 may differ
        assertThat(parts.series()).isEqualTo(general.series());
        assertThat(parts.rows()).isEqualTo(5001);
    }

    @Test
    void valueAtAMomentIsTheLastSampleAtOrBeforeIt() throws Exception {
        Path p = dir.resolve("npu_mem_0.csv");
        Files.writeString(p, "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n"
                + "0,device,0,100,100,1000.000\t\n"
                + "0,device,0,300,300,1020.000\t\n"
                + "0,device,0,200,200,1040.000\t\n"
                + "0,device,0,250,250,1100.000\t\n");
        MsprofFileResult r = read(p, Map.of("ready", 1030L, "before", 999L, "late", 5000L),
                UnaryOperator.identity());
        MsprofSeries s = r.series().get(0);
        // at 1030 us the last sample is row 2 (1020 us, 300 KiB); nothing before 1000 us; at 5000 us row 4
        assertThat(s.at("ready").orElseThrow().bytes()).isEqualTo(300L * 1024);
        assertThat(s.at("ready").orElseThrow().row()).isEqualTo(2);
        assertThat(s.at("ready").orElseThrow().ageUs()).isEqualTo(10);
        assertThat(s.at("before")).isEmpty();
        assertThat(s.at("late").orElseThrow().bytes()).isEqualTo(250L * 1024);
        // peak 300 KiB at 1020 us; gaps 20, 20, 60 us; mean (1100-1000)/3
        assertThat(s.peakTimestampUs()).isEqualTo(1020L);
        assertThat(s.maxGapUs()).isEqualTo(60L);
        assertThat(s.meanIntervalUs()).contains(100.0 / 3);
        assertThat(s.tooCoarse(50)).isTrue();
        assertThat(s.tooCoarse(100)).isFalse();
        assertThat(List.of(s.device(), s.quantity())).containsExactly("npu:0", MsprofQuantity.DEVICE_HBM_PEAK);
    }
}

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

/**
 * The maximum after a window start (the peak under load when start-up went higher), on the
 * general path, the fast path, a file cut into one part per row, slices joined, and SQLite.
 */
class MsprofWindowPeakTest {

    @TempDir
    Path dir;

    private static final String HEADER = "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n";

    /**
     * npu_mem Device of npu:0, one sample every 20 us (KB):
     * <pre>
     * row  1    2    3    4    5    6    7    8
     * us   1000 1020 1040 1060 1080 1100 1120 1140
     * KB   100  900  300  300  500  450  500  200
     * </pre>
     * Whole run: 900 KB at row 2 (start-up). From ready = 1050 us (rows 4..8): 500 KB, first at
     * row 5 (row 7 ties and is not taken). At ready: row 3 (1040 us), 300 KB. From 1080 us the
     * window holds row 5 itself (at or after); from 1081 us rows 6..8: 500 KB at row 7.
     */
    private Path deviceFile(String name, long[] kb, long firstUs) throws Exception {
        StringBuilder sb = new StringBuilder(HEADER);
        for (int i = 0; i < kb.length; i++) {
            sb.append("0,device,0,").append(kb[i]).append(',').append(kb[i]).append(',')
                    .append(firstUs + 20L * i).append(".000\t\n");
        }
        Path p = dir.resolve(name);
        Files.writeString(p, sb, StandardCharsets.US_ASCII);
        return p;
    }

    private static final long[] KB = {100, 900, 300, 300, 500, 450, 500, 200};

    private static MsprofSeries read(Path p, MsprofPass pass, UnaryOperator<CsvFileScan> tune) throws Exception {
        return TunedRead.read(p, p.getFileName().toString(), pass, 2, tune).series().get(0);
    }

    private static List<UnaryOperator<CsvFileScan>> paths() {
        return List.of(UnaryOperator.identity(), s -> s.withFastPath(false), s -> s.withPartBytes(29),
                s -> s.withFastPath(false).withPartBytes(29));
    }

    @Test
    void theMaximumAtOrAfterReadyOnEveryPath() throws Exception {
        Path p = deviceFile("npu_mem_0.csv", KB, 1000);
        MsprofPass pass = MsprofPass.of(Map.of("ready", 1050L)).withWindowFrom("ready");
        for (UnaryOperator<CsvFileScan> tune : paths()) {
            MsprofSeries s = read(p, pass, tune);
            assertThat(s.peakBytes()).isEqualTo(900L * 1024);
            assertThat(s.peakRow()).isEqualTo(2);
            MsprofWindowPeak w = s.windowPeak();
            assertThat(w).isEqualTo(new MsprofWindowPeak("ready", 1050L, 500L * 1024, "500", 1080L, "npu_mem_0.csv", 5));
            assertThat(s.at("ready").orElseThrow().bytes()).isEqualTo(300L * 1024);
        }
    }

    @Test
    void theWindowStartIsInclusiveAndAWindowNeedsToBeAskedFor() throws Exception {
        Path p = deviceFile("npu_mem_0.csv", KB, 1000);
        for (UnaryOperator<CsvFileScan> tune : paths()) {
            assertThat(read(p, MsprofPass.of(Map.of("ready", 1080L)).withWindowFrom("ready"), tune).windowPeak().row())
                    .isEqualTo(5);
            MsprofWindowPeak late = read(p, MsprofPass.of(Map.of("ready", 1081L)).withWindowFrom("ready"), tune).windowPeak();
            assertThat(List.of(late.bytes(), late.row(), late.timestampUs())).containsExactly(500L * 1024, 7L, 1120L);
            // after the last sample nothing is in the window; without a window none is kept
            assertThat(read(p, MsprofPass.of(Map.of("ready", 1141L)).withWindowFrom("ready"), tune).windowPeak()).isNull();
            assertThat(read(p, MsprofPass.of(Map.of("ready", 1050L)), tune).windowPeak()).isNull();
        }
    }

    /**
     * Slice 0 is the file above (1000..1140 us); slice 1 follows at 1160 us with 500, 480 KB
     * (a tie with slice 0's 500: slice 0's row 5 stays), then a second slice 1 variant with 700
     * KB at its row 2 (1180 us), which wins.
     */
    @Test
    void slicesJoinTheirWindowMaximaInOrder() throws Exception {
        Path s0 = deviceFile("npu_mem_slice_0_1.csv", KB, 1000);
        Path tie = deviceFile("npu_mem_slice_1_1.csv", new long[] {500, 480}, 1160);
        MsprofPass pass = MsprofPass.of(Map.of("ready", 1050L)).withWindowFrom("ready");
        MsprofSummary a = MsprofAnalyzer.analyze(List.of(new MsprofInput(s0, MsprofTable.NPU_MEM, "g", 0, null),
                new MsprofInput(tie, MsprofTable.NPU_MEM, "g", 1, null)), pass);
        MsprofWindowPeak w = a.device("npu:0").wholeDevice().orElseThrow().windowPeak();
        assertThat(List.of(w.bytes(), w.row(), w.timestampUs())).containsExactly(500L * 1024, 5L, 1080L);
        assertThat(w.file()).isEqualTo(s0.toString());
        Path higher = deviceFile("npu_mem_slice_1_2.csv", new long[] {500, 700}, 1160);
        MsprofSummary b = MsprofAnalyzer.analyze(List.of(new MsprofInput(s0, MsprofTable.NPU_MEM, "g", 0, null),
                new MsprofInput(higher, MsprofTable.NPU_MEM, "g", 1, null)), pass);
        MsprofWindowPeak w2 = b.device("npu:0").wholeDevice().orElseThrow().windowPeak();
        assertThat(List.of(w2.bytes(), w2.row(), w2.timestampUs())).containsExactly(700L * 1024, 2L, 1180L);
        assertThat(w2.file()).isEqualTo(higher.toString());
    }

    /**
     * The corpus's torch_npu export as CSV and as SQLite (two captures of the same run shape:
     * 14 RUNTIME samples each). RUNTIME is 92.234375 MB (96714752 B) on samples 6-10 and
     * 92.1875 MB (96665600 B) from sample 11 on. CSV sample 11 is data row 109 at
     * 1736408883856979.830 us (sample 10 at .836950); SQLite sample 11 is rowid 778 at
     * 1736410576557851320 ns (sample 10, rowid 701, at ...537856400 ns). A window starting
     * between samples 10 and 11 gives 96665600 B at sample 11 in both; the whole run 96714752 B.
     */
    @Test
    void csvAndSqliteGiveTheSameWindowMaximum() throws Exception {
        Path csv = Corpus.file("msprof/msinsight_level1_rank0_npu_module_mem.csv");
        Path db = Corpus.file("msprof/msinsight_level1_rank0_ascend_pytorch_profiler_0.db");
        MsprofSummary c = MsprofAnalyzer.analyze(List.of(MsprofInput.of(csv)),
                MsprofPass.of(Map.of("ready", 1_736_408_883_850_000L)).withWindowFrom("ready"));
        MsprofSummary d = MsprofAnalyzer.analyze(List.of(MsprofInput.of(db)),
                MsprofPass.of(Map.of("ready", 1_736_410_576_547_000L)).withWindowFrom("ready"));
        MsprofSeries rc = c.device("npu:0").module("RUNTIME").orElseThrow();
        MsprofSeries rd = d.device("npu:0").module("RUNTIME").orElseThrow();
        assertThat(rc.peakBytes()).isEqualTo(96_714_752L).isEqualTo(rd.peakBytes());
        assertThat(rc.windowPeak().bytes()).isEqualTo(96_665_600L).isEqualTo(rd.windowPeak().bytes());
        assertThat(List.of(rc.windowPeak().row(), rc.windowPeak().timestampUs())).containsExactly(109L, 1_736_408_883_856_979L);
        assertThat(rc.windowPeak().text()).isEqualTo("92.1875");
        assertThat(List.of(rd.windowPeak().row(), rd.windowPeak().timestampUs())).containsExactly(778L, 1_736_410_576_557_851L);
    }
}

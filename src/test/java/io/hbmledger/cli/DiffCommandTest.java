package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hbm-ledger diff} on the bundled examples and on bad input. */
class DiffCommandTest {

    private static final String A3 = "examples/a3-llama3.1-8b-eagle3";
    private static final String R1 = "examples/910b2c-deepseek-r1-tp16-oom";

    @Test
    void aReportJsonDiffsAgainstItsRunAndShowsNoChange(@TempDir Path dir) throws Exception {
        CliRun analyze = CliRun.of("analyze", "--no-write", "--format", "json", A3);
        assertThat(analyze.exit()).as(analyze.err()).isZero();
        Path report = Files.writeString(dir.resolve("report.json"), analyze.out());
        CliRun d = CliRun.of("diff", A3, report.toString());
        assertThat(d.exit()).as(d.err()).isZero();
        // the same ledger both ways: every known delta is 0; the report has no run.json beside it, so its settings are not stated
        assertThat(d.out()).contains("device npu:0/chip:0", "kv_cache", "31.84 GiB reported   31.84 GiB reported    0.00 GiB reported");
        assertThat(d.out()).contains("gpu_memory_utilization", "0.8", "B: not stated");
    }

    @Test
    void differentDeviceSetsPairByPhysicalIdAndNameTheRest() {
        // the A3 run is one device, npu:0/chip:0; the DeepSeek run's ledger has NPUs 0..15 (TP 16)
        CliRun d = CliRun.of("diff", A3, R1);
        assertThat(d.exit()).as(d.err()).isZero();
        assertThat(d.out()).contains("device npu:0/chip:0", "the device sets differ: only in " + A3 + ": none; only in " + R1
                + ": npu:1/chip:0, npu:2/chip:0");
        assertThat(d.out()).doesNotContain("device npu:1/chip:0 (");
        // TP differs, stated by both run.json files
        assertThat(d.out()).contains("tensor_parallel_size     1                -> 16");
        // each source quotes its run.json line as written (A3 line 9 '"tp" : 1', line 12 '"gpu_memory_utilization" : 0.8';
        // R1 line 10 '"tp" : 16'), in single quotes around its own double quotes: never ""tp": 1"
        assertThat(d.out()).contains("(run.json:9 '\"tp\" : 1' | run.json:10 '\"tp\" : 16')",
                "run.json:12 '\"gpu_memory_utilization\" : 0.8'").doesNotContain("\"\"");
    }

    /** A report.json side cites its sources as the run's own side does: file:line and the text as written. */
    @Test
    void aReportJsonSideQuotesItsSourcesLikeARun(@TempDir Path dir) throws Exception {
        CliRun analyze = CliRun.of("analyze", "--no-write", "--format", "json", A3);
        Path report = Files.writeString(dir.resolve("report.json"), analyze.out());
        io.hbmledger.diff.Side fromReport = io.hbmledger.diff.SideReader.read(report, w -> { });
        io.hbmledger.diff.Side fromRun = io.hbmledger.diff.SideReader.read(Path.of(A3), w -> { });
        // kv_cache: the startup log's "Available KV cache memory" line, with its text (was "file:line" only)
        String kv = fromReport.devices().get(0).amounts().get("kv_cache").source();
        assertThat(kv).isEqualTo(fromRun.devices().get(0).amounts().get("kv_cache").source()).matches(".*vllm-startup\\.log:\\d+ \".+\"");
    }

    @Test
    void aFileThatIsNotAReportExitsTwoNamingIt(@TempDir Path dir) throws Exception {
        Path notReport = Files.writeString(dir.resolve("other.json"), "{\"schema\": \"hbm-ledger/plan/1\"}");
        CliRun d = CliRun.of("diff", A3, notReport.toString());
        assertThat(d.exit()).isEqualTo(2);
        assertThat(d.err()).contains(notReport.toString(), "hbm-ledger/report/1");
        assertThat(d.out()).isEmpty();
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello");
        CliRun t = CliRun.of("diff", text.toString(), A3);
        assertThat(t.exit()).isEqualTo(2);
        assertThat(t.err()).contains(text.toString(), "not JSON");
        CliRun missing = CliRun.of("diff", dir.resolve("gone").toString(), A3);
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains(dir.resolve("gone").toString());
    }
}

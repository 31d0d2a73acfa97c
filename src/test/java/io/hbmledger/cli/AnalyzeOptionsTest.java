package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Option and run.json validation (fresh-user finding 10): bad layouts exit 2 with a clear message. */
class AnalyzeOptionsTest {

    @TempDir
    Path tmp;

    private static String ready() {
        return Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt").toString();
    }

    @Test
    void countsBelowOneAndBadDeviceIdsAreRefused() {
        for (String[] bad : new String[][] {{"--tp", "0"}, {"--tp", "-1"}, {"--dp", "0"}, {"--devices", "-1"},
                {"--devices", "3,3"}}) {
            CliRun r = CliRun.of("analyze", ready(), bad[0], bad[1], "--no-write");
            assertThat(r.exit()).as(String.join(" ", bad)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", bad)).contains(bad[0] + " ");
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void momentKeyMatchesTheSameFileWrittenAnotherWay() {
        Path f = Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt").toAbsolutePath();
        // the same file as "<dir>/./<name>": neither the input's text nor its bare name
        String other = f.getParent() + "/./" + f.getFileName();
        CliRun r = CliRun.of("analyze", f.toString(), "--moment", other + "=baseline", "--format", "json");
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(r.out()).contains("\"driver_baseline\"");
        assertThat(r.out()).doesNotContain("no idle");
    }

    private Path run(String deployment) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("run"));
        Files.copy(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"), dir.resolve("ready.txt"));
        Files.writeString(dir.resolve("run.json"), "{\n  \"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": "
                + deployment + ",\n  \"evidence\": [{\"file\": \"ready.txt\", \"moment\": \"ready\"}]\n}\n");
        return dir;
    }

    @Test
    void runJsonTpAsStringIsRefused() throws Exception {
        CliRun r = CliRun.of("analyze", run("{\"tp\": \"2\"}").toString(), "--no-write");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("run.json:3");
    }

    @Test
    void runJsonRepeatedDeviceIsRefused() throws Exception {
        CliRun r = CliRun.of("analyze", run("{\"tp\": 2, \"devices\": [3, 3]}").toString(), "--no-write");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("run.json:3").contains("device 3 twice");
    }

    /**
     * Options replace the deployment the evidence states whole: {@code --devices 3} alone runs
     * TP 1 where vLLM PR 10511's log starts {@code vllm serve ... --tensor-parallel-size 2} (line
     * 12). That was silent (fresh-user finding); a note now says what was replaced and how to keep it.
     */
    @Test
    void optionsThatReplaceTheLogsStatedTpSaySo() {
        String log = Corpus.file("vllm-log/vllm-pr10511_memory_profiling_results_table_truncated.log").toString();
        CliRun alone = CliRun.of("analyze", log, "--devices", "3", "--no-write");
        assertThat(alone.exit()).as(alone.err()).isEqualTo(0);
        String flat = alone.out().replaceAll("\\s+", " ");
        assertThat(flat).contains("note: the options replace the deployment the evidence states (TP 2, sizes read from "
                + log + ":12): the ledger uses TP 1 x DP 1 x PP 1; give --tp, --dp and --pp too");
        CliRun both = CliRun.of("analyze", log, "--tp", "2", "--devices", "3,4", "--no-write");
        assertThat(both.exit()).as(both.err()).isEqualTo(0);
        assertThat(both.out()).doesNotContain("the options replace");
    }
}

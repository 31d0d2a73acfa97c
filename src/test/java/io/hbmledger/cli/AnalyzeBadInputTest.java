package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Unusable input: exit 2, a message naming file and line, and no report.json written or replaced. */
class AnalyzeBadInputTest {

    @TempDir
    Path tmp;

    private Path run(String evidenceJson) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("run"));
        Files.writeString(dir.resolve("run.json"), "{\n  \"schema\": \"hbm-ledger/run/1\",\n  \"evidence\": [\n"
                + evidenceJson + "\n  ]\n}\n");
        return dir;
    }

    @Test
    void evidenceOutsideTheRunIsRefused() throws Exception {
        Path dir = run("    {\"file\": \"../elsewhere/npu-smi.txt\", \"moment\": \"ready\"}");
        CliRun r = CliRun.of("analyze", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("run.json:4:").contains("leaves the run directory");
        assertThat(dir.resolve("report.json")).doesNotExist();
        assertThat(r.out()).isEmpty();
    }

    @Test
    void emptyAndBinaryFilesNameFileAndLineAndLeaveTheOldReportAlone() throws Exception {
        Path dir = run("    {\"file\": \"empty.txt\", \"moment\": \"ready\"},\n    {\"file\": \"blob.bin\"}");
        Files.writeString(dir.resolve("empty.txt"), "");
        Files.write(dir.resolve("blob.bin"), new byte[] {0, 1, 2, 3, (byte) 0xff, 0});
        Files.writeString(dir.resolve("report.json"), "previous report");
        CliRun r = CliRun.of("analyze", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("empty.txt: line 1: the file is empty")
                .contains("blob.bin: line 1: format not recognised: binary content (NUL or control bytes on its only line)")
                .contains("no ledger written");
        assertThat(Files.readString(dir.resolve("report.json"))).isEqualTo("previous report");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void missingEvidenceFileIsNamed() throws Exception {
        Path dir = run("    {\"file\": \"evidence/nowhere.txt\"}");
        CliRun r = CliRun.of("analyze", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("nowhere.txt").contains("expected a regular file or an msprof export directory, found nothing");
    }

    @Test
    void runWithoutEvidenceAndMissingRunJson() throws Exception {
        Path dir = run("");
        CliRun r = CliRun.of("analyze", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("the run names no evidence files");
        Path bare = Files.createDirectories(tmp.resolve("bare"));
        assertThat(CliRun.of("analyze", bare.toString()).err()).contains("no run.json");
    }

    @Test
    void fileListOptionsAreChecked() throws Exception {
        Path f = Files.writeString(tmp.resolve("a.txt"), "x");
        CliRun r = CliRun.of("analyze", f.toString(), "--moment", "b.txt=ready");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--moment b.txt=...: no such file");
        r = CliRun.of("analyze", f.toString(), "--moment", "a.txt=noon");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("expected one of baseline, ready");
        Path dir = run("    {\"file\": \"a.txt\"}");
        r = CliRun.of("analyze", dir.toString(), "--tp", "2");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("a run directory takes them from its run.json");
    }
}

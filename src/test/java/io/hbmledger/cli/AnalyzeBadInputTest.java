package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    void emptyAndBinaryFilesNameFileAndLineAndSetTheOldReportAside() throws Exception {
        Path dir = run("    {\"file\": \"empty.txt\", \"moment\": \"ready\"},\n    {\"file\": \"blob.bin\"}");
        Files.writeString(dir.resolve("empty.txt"), "");
        Files.write(dir.resolve("blob.bin"), new byte[] {0, 1, 2, 3, (byte) 0xff, 0});
        Files.writeString(dir.resolve("report.json"), "previous report");
        CliRun r = CliRun.of("analyze", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("empty.txt: line 1: the file is empty")
                .contains("blob.bin: line 1: format not recognised: binary content (NUL or control bytes on its only line)")
                .contains("no ledger written");
        // issue 14: a CI job read the old report.json beside the run.json just refused; it is set aside, and said so
        assertThat(dir.resolve("report.json")).doesNotExist();
        assertThat(Files.readString(dir.resolve("report.json.stale"))).isEqualTo("previous report");
        assertThat(r.err()).contains("was renamed to report.json.stale");
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
        // a directory without run.json stands for the evidence files in it: none here
        assertThat(CliRun.of("analyze", bare.toString()).err()).contains("an empty directory without run.json");
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
        // a pid that no process has would make every process on the card another tenant
        r = CliRun.of("analyze", f.toString(), "--server-pid", "4312,-1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("--server-pid 4312,-1: expected process ids, whole numbers above 0").contains("found -1");
        // --explain is text only: with JSON it was ignored without a word
        r = CliRun.of("analyze", A3.toString(), "--no-write", "--explain", "kv_cache", "--format", "json");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("--explain kv_cache shows one component as text, not with --format json");
        assertThat(CliRun.of("analyze", A3.toString(), "--no-write", "--explain", "kv_cache").exit()).isZero();
    }

    private static final Path A3 = Path.of("examples/a3-llama3.1-8b-eagle3");

    /** The a3 example run with its run.json replaced by {@code json}: real evidence files, a run.json of the test's making. */
    private Path a3With(String json) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("a3"));
        Path ev = Files.createDirectories(dir.resolve("evidence"));
        for (String f : List.of("npu-smi-idle.txt", "vllm-startup.log")) {
            Files.copy(A3.resolve("evidence").resolve(f), ev.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Files.writeString(dir.resolve("run.json"), json);
        return dir;
    }

    private static final String A3_EVIDENCE = """
              "evidence": [
                {"file": "evidence/npu-smi-idle.txt", "moment": "baseline"},
                {"file": "evidence/vllm-startup.log", "moment": "startup", "rank": 0}
              ]
            """;

    @Test
    void moreDevicesThanRanksIsRefusedNotGivenAnInventedRank() throws Exception {
        // docs/readme-ledger.md: devices[i] is the device rank i ran on. TP 1 has one rank, so device 1
        // would get a ledger "rank 1" that does not exist (was: a note, exit 0 and that ledger)
        Path idle = A3.resolve("evidence/npu-smi-idle.txt");
        Path log = A3.resolve("evidence/vllm-startup.log");
        CliRun r = CliRun.of("analyze", idle.toString(), log.toString(), "--tp", "1", "--devices", "0,1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("--devices 0,1 lists 2 devices but TP 1 x DP 1 = 1 rank")
                .contains("[1] would be ranks that do not exist").contains("--tp, --dp, --pp").contains("(--devices 0)");
        // the same devices under TP 1 x PP 2 are two ranks: accepted, and the heading says PP
        CliRun pp = CliRun.of("analyze", idle.toString(), "--tp", "1", "--pp", "2", "--devices", "0,1", "--detail");
        assertThat(pp.exit()).as(pp.err()).isZero();
        assertThat(pp.out()).contains("TP 1  PP 2  DP 1  devices [0, 1]").contains("device 1, rank 1");
        // fewer devices than ranks is one node of several: still a note, not a refusal
        CliRun node = CliRun.of("analyze", idle.toString(), "--tp", "2", "--devices", "0", "--detail");
        assertThat(node.exit()).as(node.err()).isZero();
        assertThat(node.out()).contains("ranks beyond the list (other nodes?) have no ledger here");

        Path dir = a3With("{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"tp\": 1,\n    \"devices\": [0, 1]},\n"
                + A3_EVIDENCE + "}\n");
        CliRun run = CliRun.of("analyze", dir.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("run.json:3: deployment.devices lists 2 devices but TP 1 x DP 1 = 1 rank");
        assertThat(dir.resolve("report.json")).doesNotExist();
    }

    @Test
    void runJsonTypeErrorsNameFileLineColumnFieldAndTheExpectedType() throws Exception {
        // was: 'Cannot coerce String value ("1") to `java.lang.Integer` value (but might if coercion using
        // `CoercionConfig` was enabled)', no field, no column
        Path dir = a3With("{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"tp\": \"1\"},\n" + A3_EVIDENCE + "}\n");
        CliRun r = CliRun.of("analyze", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        // line 2, column 24, where the value "1" starts: 2 spaces + "deployment": {"tp":  (12 + 1 + 1 + 1 + 4 + 1 + 1) = 23 characters before it
        assertThat(r.err()).contains(dir.resolve("run.json") + ":2:24: deployment.tp: expected a whole number without quotes")
                .contains("found the string \"1\"").doesNotContain("java.lang").doesNotContain("CoercionConfig");

        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"devices\": [0, \"x\"]},\n"
                + A3_EVIDENCE.replace("\"rank\": 0", "\"rank\": [0]") + "}\n");
        r = CliRun.of("analyze", dir.toString());
        assertThat(r.err()).contains("deployment.devices[1]: expected a whole number without quotes").contains("found the string \"x\"");

        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n" + A3_EVIDENCE.replace("\"rank\": 0", "\"rank\": [0]") + "}\n");
        r = CliRun.of("analyze", dir.toString());
        assertThat(r.err()).contains("run.json:4:").contains("evidence[1].rank: expected a whole number without quotes")
                .contains("found an array [0]");

        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\", \"deployment\": [1],\n" + A3_EVIDENCE + "}\n");
        assertThat(CliRun.of("analyze", dir.toString()).err()).contains("deployment: expected an object {...}, found an array [1]");

        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"tp\": 1,}\n}\n");
        assertThat(CliRun.of("analyze", dir.toString()).err()).contains("run.json:2:").contains("not valid JSON: Unexpected character");
    }

    @Test
    void aTopLevelKeyNamedExtraIsAnExtraPropertyLikeAnyOther() throws Exception {
        // docs/run.schema.json allows additional properties; "extra" was taken for the whole map and refused
        Path dir = a3With("{\"schema\": \"hbm-ledger/run/1\", \"extra\": 5,\n  \"deployment\": {\"tp\": 1, \"extra\": \"x\"},\n"
                + A3_EVIDENCE.replace("\"moment\": \"baseline\"", "\"moment\": \"baseline\", \"extra\": [1]") + "}\n");
        CliRun r = CliRun.of("analyze", dir.toString(), "--no-write");
        assertThat(r.exit()).as(r.err()).isZero();
    }

    @Test
    void aMomentThatIsNotATimeWithOffsetIsRefused() throws Exception {
        Path dir = a3With("{\"schema\": \"hbm-ledger/run/1\",\n  \"moments\": {\n    \"ready\": \"2026-11-29 21:03\"},\n"
                + A3_EVIDENCE + "}\n");
        CliRun r = CliRun.of("analyze", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("run.json:3: moments.ready is \"2026-11-29 21:03\"; expected ISO-8601 with an offset or Z");
    }
}


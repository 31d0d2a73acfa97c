package io.hbmledger.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.run.RunManifest.Deployment;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunDirectoryTest {

    @TempDir
    Path tmp;

    private Path run(String json) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("run"));
        Files.writeString(dir.resolve("run.json"), json);
        return dir;
    }

    @Test
    void readsAManifestAndResolvesEvidenceInside() throws Exception {
        Path dir = run("""
                {
                  "schema": "hbm-ledger/run/1",
                  "source": "issue thread",
                  "deployment": {"model": "m", "tp": 2, "devices": [4, 5], "server_pids": [77]},
                  "evidence": [
                    {"file": "evidence/npu-smi.txt", "moment": "ready"},
                    {"file": "./serve.log", "moment": "startup", "rank": 0}
                  ]
                }
                """);
        RunDirectory rd = RunDirectory.open(dir);
        assertThat(rd.manifest().deployment().devices()).containsExactly(4, 5);
        assertThat(rd.manifest().deployment().serverPids()).containsExactly(77L);
        assertThat(rd.manifest().evidence()).hasSize(2);
        assertThat(rd.resolve(rd.manifest().evidence().get(0)))
                .isEqualTo(dir.resolve("evidence/npu-smi.txt"));
        assertThat(rd.manifest().evidence().get(1).rank()).isEqualTo(0);
        // run.json itself may be given instead of its directory
        assertThat(RunDirectory.open(dir.resolve("run.json")).manifest().source()).isEqualTo("issue thread");
    }

    @Test
    void refusesAbsolutePathsWithFileAndLine() throws Exception {
        Path dir = run("""
                {
                  "schema": "hbm-ledger/run/1",
                  "evidence": [
                    {"file": "ok.txt"},
                    {"file": "/etc/passwd", "moment": "ready"}
                  ]
                }
                """);
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("run.json:5:")
                .hasMessageContaining("absolute path");
    }

    @Test
    void refusesDotDotThatLeaves() throws Exception {
        Path dir = run("""
                {"schema": "hbm-ledger/run/1",
                 "evidence": [{"file": "a/../../other/npu-smi.txt"}]}
                """);
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("run.json:2:")
                .hasMessageContaining("leaves the run directory");
    }

    @Test
    void dotDotThatStaysInsideIsAccepted() throws Exception {
        Path dir = run("""
                {"schema": "hbm-ledger/run/1", "evidence": [{"file": "a/../b.txt"}]}
                """);
        assertThat(RunDirectory.open(dir).manifest().evidence()).hasSize(1);
    }

    @Test
    void refusesSymlinksPointingOutside() throws Exception {
        Path outside = Files.writeString(tmp.resolve("secret.txt"), "x");
        Path dir = run("""
                {"schema": "hbm-ledger/run/1",
                 "evidence": [{"file": "link.txt"}, {"file": "sub/x.txt"}]}
                """);
        Files.createSymbolicLink(dir.resolve("link.txt"), outside);
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("run.json:2:")
                .hasMessageContaining("symbolic link");
        // a linked folder that leads out, even to a file that does not exist yet
        Files.delete(dir.resolve("link.txt"));
        Files.writeString(dir.resolve("link.txt"), "inside");
        Files.createSymbolicLink(dir.resolve("sub"), tmp);
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("sub/x.txt")
                .hasMessageContaining("outside the run directory");
    }

    @Test
    void refusesBrokenJsonWithLine() throws Exception {
        Path dir = run("{\n  \"schema\": \"hbm-ledger/run/1\",\n  \"evidence\": [\n    {\"file\": }\n]}\n");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("run.json:4:");
    }

    @Test
    void refusesWrongSchemaAndUnknownMoment() throws Exception {
        Path dir = run("{\"schema\": \"other/1\", \"evidence\": []}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("run.json:1:")
                .hasMessageContaining("hbm-ledger/run/1");
        Files.writeString(dir.resolve("run.json"),
                "{\"schema\": \"hbm-ledger/run/1\",\n\"evidence\": [{\"file\": \"x\", \"moment\": \"noon\"}]}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("run.json:2:")
                .hasMessageContaining("baseline, ready");
    }

    @Test
    void aQuotedNumberOrBooleanIsRefusedLikeAnyOtherTypeError() throws Exception {
        // docs/run.schema.json types gpu_memory_utilization as number and ep as boolean; Jackson
        // read "0.8" as 0.8 while "abc" was refused, so a typing mistake passed when it looked numeric
        Path dir = run("{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"gpu_memory_utilization\": \"0.8\"}}");
        // column 44, where "0.8" starts: 2 spaces + "deployment": {"gpu_memory_utilization":  (12+2+1+24+2) = 43 characters before it
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("run.json:2:44: deployment.gpu_memory_utilization: expected a number without quotes (e.g. 0.9), found the string \"0.8\"");
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"ep\": \"true\"}}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("run.json:2:24: deployment.ep: expected true or false without quotes, found the string \"true\"");
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"ep\": 1}}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("run.json:2:24: deployment.ep: expected true or false without quotes, found the integer 1");
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"server_pids\": [\"77\"]}}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("deployment.server_pids[0]: expected a whole number without quotes")
                .hasMessageContaining("found the string \"77\"");
    }

    @Test
    void aNumberWhereAStringBelongsIsATypeErrorNotAQuotedValue() throws Exception {
        // was: 'has moment "3"' and 'found "1"': the number shown as if the file had quoted it, no column
        Path dir = run("{\"schema\": \"hbm-ledger/run/1\",\n\"evidence\": [{\"file\": \"x\", \"moment\": 3}]}");
        // column 38, where 3 starts: "evidence": [{"file": "x", "moment":  (10+2+2+6+2+3+2+8+2) = 37 characters before it
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("run.json:2:38: evidence[0].moment: expected a string in double quotes, found the integer 3");
        // column 12: {"schema":  is 11 characters
        Files.writeString(dir.resolve("run.json"), "{\"schema\": 1}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("run.json:1:12: schema: expected a string in double quotes, found the integer 1");
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n \"moments\": {\"ready\": true}}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                // column 23, where true starts: 1 space + "moments": {"ready":  (1+9+2+1+7+2) = 22 characters before it
                .hasMessageContaining("run.json:2:23: moments.ready: expected a string in double quotes, found true");
    }

    @Test
    void aKeyGivenTwiceIsRefusedNotLastWins() throws Exception {
        // was: "tp": 2, "tp": 1 ran as TP 1 without a word
        Path dir = run("{\"schema\": \"hbm-ledger/run/1\",\n  \"deployment\": {\"tp\": 2, \"tp\": 1}}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .isInstanceOf(RunFileException.class)
                .hasMessageContaining("run.json:2:")
                .hasMessageContaining("deployment: the key \"tp\" is given twice");
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n\"schema\": \"hbm-ledger/run/1\"}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("run.json:2:")
                .hasMessageContaining("the top level: the key \"schema\" is given twice");
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\",\n\"evidence\": [{\"file\": \"a\"},\n {\"file\": \"x\", \"rank\": 0, \"rank\": 1}]}");
        assertThatThrownBy(() -> RunDirectory.open(dir))
                .hasMessageContaining("run.json:3:")
                .hasMessageContaining("evidence[1]: the key \"rank\" is given twice");
    }

    @Test
    void refusesMissingDirectoryAndManifest() throws Exception {
        assertThatThrownBy(() -> RunDirectory.open(tmp.resolve("none")))
                .isInstanceOf(RunFileException.class).hasMessageContaining("expected a run directory");
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertThatThrownBy(() -> RunDirectory.open(empty))
                .isInstanceOf(RunFileException.class).hasMessageContaining("no run.json");
    }

    @Test
    void writerRoundTripsAndKeepsUnknownFields() throws Exception {
        Path dir = run("""
                {"schema": "hbm-ledger/run/1", "future_field": {"a": 1},
                 "deployment": {"tp": 2, "devices": [0, 1], "future_dep": "x"},
                 "moments": {"ready": "2026-11-29T20:00:00Z"},
                 "evidence": [{"file": "a.txt", "moment": "ready", "sha256": "abc"}]}
                """);
        RunManifest m = RunDirectory.open(dir).manifest();
        RunManifest next = m.plusEvidence(EvidenceEntry.of("b.log", "startup").withRank(1))
                .withStatus("incomplete", "export", List.of("no msprof CSV came out of the export"));
        new RunManifestWriter().write(dir, next);
        String written = Files.readString(dir.resolve("run.json"), StandardCharsets.UTF_8);
        assertThat(written).contains("\"future_field\"", "\"future_dep\"", "\"sha256\"",
                "\"incomplete_reasons\"", "\"server_pids\"".substring(0, 0));
        RunManifest back = RunDirectory.open(dir).manifest();
        assertThat(back).isEqualTo(next);
        assertThat(back.extra()).containsKey("future_field");
        assertThat(back.deployment().extra()).containsEntry("future_dep", "x");
        assertThat(back.evidence().get(0).extra()).containsEntry("sha256", "abc");
        assertThat(back.moments()).isEqualTo(Map.of("ready", "2026-11-29T20:00:00Z"));
        // no temporary file is left beside it
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("run.json");
        }
    }

    @Test
    void writerWritesSnakeCaseAndOmitsNulls() throws Exception {
        RunManifest m = RunManifest.of(Deployment.of("Llama", 1, null, List.of(3)),
                List.of(EvidenceEntry.of("evidence/npu-smi-ready.txt", "ready")));
        String s = new String(new RunManifestWriter().toBytes(m), StandardCharsets.UTF_8);
        assertThat(s).contains("\"schema\" : \"hbm-ledger/run/1\"", "\"devices\" : [ 3 ]")
                .doesNotContain("null", "run_id", "extra", "incomplete_reasons");
    }

    @Test
    void aKeyNamedExtraIsKeptWhereItWasLikeAnyOtherUnknownKey() throws Exception {
        // The schema allows additional properties at every level. "extra" is also the Java name of
        // the map that keeps them: Jackson used to bind the key to the whole map, so 5 was refused
        // and {"a": 1} came back one level up, as "a", after a rewrite by collect.
        Path dir = run("""
                {"schema": "hbm-ledger/run/1", "extra": {"a": 1}, "note": 5,
                 "deployment": {"tp": 1, "extra": "x"},
                 "evidence": [{"file": "e.txt", "extra": [1, 2]}]}
                """);
        RunManifest m = RunDirectory.open(dir).manifest();
        assertThat(m.extra()).containsEntry("extra", Map.of("a", 1)).containsEntry("note", 5).doesNotContainKey("a");
        assertThat(m.deployment().extra()).containsEntry("extra", "x");
        assertThat(m.evidence().get(0).extra()).containsEntry("extra", List.of(1, 2));
        new RunManifestWriter().write(dir, m);
        com.fasterxml.jackson.databind.JsonNode back = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(dir.resolve("run.json").toFile());
        assertThat(back.path("extra").path("a").asInt()).isEqualTo(1);
        assertThat(back.has("a")).isFalse();
        assertThat(back.path("deployment").path("extra").asText()).isEqualTo("x");
        assertThat(back.path("evidence").get(0).path("extra").toString()).isEqualTo("[1,2]");
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\", \"extra\": 5}");
        assertThat(RunDirectory.open(dir).manifest().extra()).containsEntry("extra", 5);
    }

    @Test
    void runJsonStartingWithNulBytesIsRefusedOnOneLineNotAnIoError() throws Exception {
        // RunJsonFuzzTest's finding (RunJsonFuzzTestInputs/runJson/finding-utf32-guess-from-nul-bytes):
        // eight NUL bytes made Jackson read UTF-32 and throw CharConversionException, an IOException
        Path run = Files.createDirectories(tmp.resolve("nul"));
        byte[] bytes = new byte[8 + 6];
        System.arraycopy("{\n #\u0082.".getBytes(StandardCharsets.ISO_8859_1), 0, bytes, 8, 6);
        Files.write(run.resolve("run.json"), bytes);
        assertThatThrownBy(() -> RunDirectory.open(run))
                .isInstanceOf(RunFileException.class)
                .hasMessageStartingWith(run.resolve("run.json") + ":1: expected UTF-8 JSON text")
                .hasMessageNotContaining("\n");
    }
}


package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An issue that pastes an idle npu-smi table (the corpus 312 table: 8 x 910B1, 3437 MiB on NPU 0,
 * "No running processes" on NPUs 1-7) and says so in its prose, with the start command it ran
 * after: the table is the idle baseline, not a sample of the running server, so it is not held
 * against the server's budget (0.9 x 64 GiB = 57.60 GiB; 3437 MiB is 6% of it).
 */
class AnalyzeIdlePasteTest {

    private static final long MIB = 1L << 20;

    @TempDir
    Path tmp;

    private Path issue(String prose) throws Exception {
        return issue(prose, "");
    }

    /** @param below the line right below the table's closing fence (line 64) */
    private Path issue(String prose, String below) throws Exception {
        List<String> md = new ArrayList<>();
        md.add(prose);
        md.add("");
        md.add("```");
        md.addAll(Files.readAllLines(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"),
                StandardCharsets.UTF_8));
        md.add("```");
        md.add(below);
        md.add("Then I start it with `vllm serve /models/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.9` and it hangs.");
        // named "issue.md": no moment from the file name
        return Files.write(tmp.resolve("issue.md"), md, StandardCharsets.UTF_8);
    }

    static JsonNode analyze(Path p) throws Exception {
        CliRun r = CliRun.of("analyze", "--no-write", "--format", "json", p.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        return new ObjectMapper().readTree(r.out());
    }

    private static List<String> kinds(JsonNode report) {
        List<String> out = new ArrayList<>();
        report.get("findings").forEach(f -> out.add(f.get("kind").asText()));
        return out;
    }

    @Test
    void aTableTheProseSaysIsIdleIsTheBaselineNotASampleOfTheServer() throws Exception {
        JsonNode r = analyze(issue("Before starting vLLM, npu-smi shows:"));
        assertThat(kinds(r)).doesNotContain("below_budget");
        assertThat(r.get("notes").toString()).contains("taken at baseline").contains("line 1 says \\\"Before starting\\\"");
        // line 12 of the paste (312's line 9): "3437 / 65536" on NPU 0, less pid 641248's 113 MiB (line 38)
        JsonNode baseline = AnalyzeFindingsTest.entry(r.get("devices").get(0), "driver_baseline");
        assertThat(baseline.get("bytes").asLong()).isEqualTo((3437 - 113) * MIB);
    }

    @Test
    void aSentenceRightBelowTheTableThatPointsBackAtItCountsToo() throws Exception {
        // vllm-ascend issues often say it after the paste: "以上是启动vllm之前的npu-smi"
        JsonNode r = analyze(issue("npu-smi info:", "以上是启动vllm之前的npu-smi信息。"));
        assertThat(kinds(r)).doesNotContain("below_budget");
        assertThat(r.get("notes").toString()).contains("lines 4-62 (line 64 says \\\"启动vllm之前\\\") taken at baseline")
                .contains("from the prose below the table");
        // 3437 MiB used less the 113 MiB of pid 641248, which the idle table lists
        assertThat(AnalyzeFindingsTest.entry(r.get("devices").get(0), "driver_baseline").get("bytes").asLong())
                .isEqualTo((3437 - 113) * MIB);
    }

    @Test
    void withoutThatSentenceTheSameTableIsStillComparedWithTheBudget() throws Exception {
        // the finding item 5 removes for idle tables, shown to fire on the same paste without the prose's word
        JsonNode r = analyze(issue("npu-smi shows:"));
        assertThat(kinds(r)).contains("below_budget");
        // 312's line 35, "| 0  0 | 641248 |  | 113 |": a process npu-smi prints without a name, 113 MiB (0.11 GiB)
        r.get("findings").forEach(f -> {
            if (f.get("kind").asText().equals("other_tenant")) {
                assertThat(f.get("text").asText()).contains("pid 641248 without a name (0.11 GiB)").doesNotContain("null");
            }
        });
    }

    @Test
    void anIdleTableBesideAnotherIsLeftWithoutAMomentAndSaid() throws Exception {
        Path p = issue("Before starting vLLM, npu-smi shows:");
        List<String> md = new ArrayList<>(Files.readAllLines(p, StandardCharsets.UTF_8));
        md.add("");
        // says nothing of when: it may be the same idle cards a minute later, or the running server
        md.add("And this one from the other node:");
        md.add("```");
        md.addAll(Files.readAllLines(Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt"),
                StandardCharsets.UTF_8));
        md.add("```");
        Files.write(p, md, StandardCharsets.UTF_8);
        CliRun r = CliRun.of("analyze", "--no-write", "--format", "json", p.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("shows idle devices, before the server started, but not the other tables")
                .contains("(nor that lines 69-167 were taken after the start)");
        assertThat(new ObjectMapper().readTree(r.out()).get("notes").toString()).doesNotContain("taken at baseline");
    }

    /** The same sentence at the top of a file the npu-smi reader takes whole (no fence), the command in a file of its own. */
    @Test
    void aSentenceAboveATableFileReadWholeCountsToo() throws Exception {
        List<String> smi = new ArrayList<>();
        smi.add("启动vllm之前，npu-smi info 如下：");
        smi.addAll(Files.readAllLines(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"),
                StandardCharsets.UTF_8));
        Path table = Files.write(tmp.resolve("npu.txt"), smi, StandardCharsets.UTF_8);
        Path command = Files.write(tmp.resolve("cmd.md"), List.of("started with:", "```",
                "vllm serve /models/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.9", "```"), StandardCharsets.UTF_8);
        CliRun r = CliRun.of("analyze", "--no-write", "--format", "json", table.toString(), command.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(r.out());
        assertThat(kinds(report)).doesNotContain("below_budget");
        assertThat(report.get("notes").toString()).contains("npu.txt (line 1 says \\\"启动vllm之前\\\") taken at baseline");
        // without the sentence the file is a sample of the running server again
        Files.write(table, smi.subList(1, smi.size()), StandardCharsets.UTF_8);
        JsonNode again = new ObjectMapper().readTree(CliRun.of("analyze", "--no-write", "--format", "json", table.toString(),
                command.toString()).out());
        assertThat(kinds(again)).contains("below_budget");
    }
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start command whose --gpu-memory-utilization disagrees with the value vLLM prints: vLLM's is
 * the one used, and a note names both with their lines. The log is vllm-ascend #2667's as it is
 * (its non-default args, line 8: 'gpu_memory_utilization': 0.8; total 65464696832 B on line 47),
 * with a hand-written `vllm serve` command asking 0.9. Worked by hand: 0.8 x 65464696832 B =
 * 52371757465.6 B = 48.78 GiB; 0.9 would give 58918227148.8 B = 54.87 GiB.
 */
class AnalyzeAskedUtilizationTest {

    private static final String COMMAND = "$ vllm serve LLM-Research/Meta-Llama-3.1-8B-Instruct --max-model-len 128"
            + " --gpu-memory-utilization 0.9 --enforce-eager";

    @TempDir
    Path tmp;

    private Path log(boolean commandFirst) throws Exception {
        List<String> lines = new ArrayList<>(Files.readAllLines(
                Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log")));
        if (commandFirst) {
            lines.set(0, COMMAND); // in place of the reporter's "python ./examples/..." prompt line
        } else {
            lines.add(COMMAND); // "started with:" after the log, as issues often paste it
        }
        Path p = tmp.resolve(commandFirst ? "command-first.log" : "command-after.log");
        Files.write(p, lines);
        return p;
    }

    private static List<String> notes(JsonNode report) {
        List<String> out = new ArrayList<>();
        report.get("notes").forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void commandBeforeTheLogIsNamedBesideVllmsValue() throws Exception {
        Path log = log(true);
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of("analyze", log.toString(), "--no-write", "--format", "json"));
        assertThat(notes(report)).filteredOn(n -> n.contains("gpu_memory_utilization")).singleElement().asString()
                .contains(log + ":1 asks gpu_memory_utilization 0.9", "vLLM prints 0.8 at " + log + ":8", "0.8 is used");
        assertThat(report.toString()).contains("current budget of 48.78 GiB").doesNotContain("54.87 GiB");
    }

    /** Pasted after the log, the command must not replace the value vLLM printed for the findings or the checks. */
    @Test
    void commandAfterTheLogDoesNotReplaceVllmsValue() throws Exception {
        Path log = log(false);
        int commandLine = Files.readAllLines(log).size();
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of("analyze", log.toString(), "--no-write", "--format", "json"));
        assertThat(notes(report)).filteredOn(n -> n.contains("gpu_memory_utilization")).singleElement().asString()
                .contains(log + ":" + commandLine + " asks gpu_memory_utilization 0.9", "vLLM prints 0.8 at " + log + ":8");
        assertThat(report.toString()).contains("current budget of 48.78 GiB", "budget 0.8 x 60.97 GiB")
                .doesNotContain("54.87 GiB");
    }

    /** The same value in the command and in vLLM's line: nothing to say. */
    @Test
    void agreeingValuesGiveNoNote() throws Exception {
        Path log = tmp.resolve("agree.log");
        List<String> lines = new ArrayList<>(Files.readAllLines(log(true)));
        lines.set(0, COMMAND.replace("0.9", "0.8"));
        Files.write(log, lines);
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of("analyze", log.toString(), "--no-write", "--format", "json"));
        assertThat(notes(report)).noneMatch(n -> n.contains("gpu_memory_utilization"));
    }
}

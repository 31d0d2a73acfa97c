package io.hbmledger.evidence.paste;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.testing.Cases;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A vLLM start command written as inline code in an issue's prose is read like a fenced one:
 * the same observations, citing the prose line. The table is the 8809 case's npu-smi.txt, read in
 * place; the command lines are written in the forms seen in issues (one inline span in a sentence;
 * vllm #19023's one span per line, the last flag glued to its backslash).
 */
class InlineCommandsTest {

    @TempDir
    Path dir;

    private EvidenceFile read(List<String> lines) throws Exception {
        Path p = dir.resolve("issue.md");
        Files.write(p, lines, StandardCharsets.UTF_8);
        return EvidenceReaders.all().read(p, "issue.md");
    }

    private static List<Observation> named(EvidenceFile f, String quantity) {
        return f.observations().stream().filter(o -> o.quantity().contractName().equals(quantity)).toList();
    }

    @Test
    void aCommandInASentenceIsReadLikeAFencedOne() throws Exception {
        String command = "vllm serve /models/Qwen3.6-35B-A3B --tensor-parallel-size 8 --gpu-memory-utilization 0.85";
        List<String> issue = new ArrayList<>();
        issue.add("Once vLLM is up (started with `" + command + "` in Docker), MIS-TEI cannot start. npu-smi:"); // 1
        issue.add("");                                                                                           // 2
        issue.add("```");                                                                                        // 3
        issue.addAll(Files.readAllLines(Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "npu-smi.txt"),
                StandardCharsets.UTF_8));                                                                        // 4-16
        issue.add("```");
        EvidenceFile inline = read(issue);
        assertThat(named(inline, "memory_utilization")).singleElement().satisfies(o -> {
            assertThat(o.value()).isEqualTo(0.85);
            assertThat(o.line()).isEqualTo(1);
            assertThat(o.text()).isEqualTo("0.85");
        });
        assertThat(named(inline, "tensor_parallel_size")).singleElement().satisfies(o -> assertThat(o.value()).isEqualTo(8));
        assertThat(named(inline, "model")).singleElement().satisfies(o -> assertThat(o.text()).isEqualTo("/models/Qwen3.6-35B-A3B"));
        // the table still gives NPU 0's 28220 MiB, at the table's line 9 + 3
        assertThat(named(inline, "hbm_used").get(0).line()).isEqualTo(12);
        assertThat(inline.parts()).extracting(EvidencePart::label).contains(PasteReader.INLINE);
        assertThat(inline.warnings()).isEmpty();

        // the same command in a fence gives the same quantities and values (server_start, model, tp, utilization)
        EvidenceFile fenced = read(List.of("started with:", "```bash", command, "```"));
        assertThat(fenced.observations()).extracting(o -> o.quantity().contractName() + "=" + o.value())
                .containsExactlyElementsOf(inline.observations().stream().filter(o -> o.line() == 1)
                        // the prose's "MIS-TEI" is another serving program, named apart from the command
                        .filter(o -> o.quantity() != Quantity.OTHER_SERVICE)
                        .map(o -> o.quantity().contractName() + "=" + o.value()).toList())
                .hasSize(4);
        assertThat(named(inline, "other_service")).singleElement().satisfies(o -> assertThat(o.text()).isEqualTo("MIS-TEI"));
    }

    @Test
    void aCommandWrittenOneSpanPerLineGoesOnOverItsLines() throws Exception {
        // the shape of vllm #19023's "running script": the flags on the lines below, "0.5\" glued
        EvidenceFile f = read(List.of(
                "running script:",                            // 1
                "`vllm serve /path/to/qwen2.5-vl`",           // 2
                "`--host 0.0.0.0 \\`",                        // 3
                "`--tp 4 \\`",                                // 4
                "`--gpu-memory-utilization 0.5\\`",           // 5
                "`--max-model-len 1024 \\`",                  // 6
                "`--trust-remote-code \\`",                   // 7
                "",
                "but it holds 87G of the 96G."));
        assertThat(named(f, "memory_utilization")).singleElement().satisfies(o -> {
            assertThat(o.value()).isEqualTo(0.5);
            assertThat(o.line()).isEqualTo(5);
        });
        assertThat(named(f, "tensor_parallel_size")).singleElement().satisfies(o -> assertThat(o.line()).isEqualTo(4));
        assertThat(named(f, "max_model_len")).singleElement().satisfies(o -> assertThat(o.value()).isEqualTo(1024));
        assertThat(f.parts()).filteredOn(p -> p.label().equals(PasteReader.INLINE)).singleElement()
                .satisfies(p -> assertThat(p.lines()).isEqualTo("lines 2-7"));
    }

    @Test
    void inlineCodeThatStartsNoCommandIsProse() throws Exception {
        EvidenceFile f = read(List.of(
                "The `vllm serve` flags are cut from the excerpt; `--gpu-memory-utilization` is unknown,",
                "and `gpu_memory_utilization=0.9` is only the default I assume."));
        assertThat(f.observations()).isEmpty();
        assertThat(f.warnings()).singleElement().asString().contains("only prose");
    }

    @Test
    void aStatementBesideTheCommandIsNotCountedTwice() throws Exception {
        // "instances" and the setting's name on one line make a prose statement; the value inside the command is the command's
        EvidenceFile f = read(List.of(
                "Both instances run `vllm serve /models/Qwen3-0.6B --gpu-memory-utilization 0.3` on one card."));
        assertThat(named(f, "memory_utilization")).singleElement()
                .satisfies(o -> assertThat(o.context().component()).isNull());
    }

    @Test
    void flagsInSpansOfTheirOwnAfterTheCommandOnItsLineJoinIt() throws Exception {
        // "`vllm serve M` with `--gpu-memory-utilization 0.85` and `--tensor-parallel-size 8`": the
        // flags were dropped (only the model was read); a flag after a sentence is not the command's
        EvidenceFile f = read(List.of(
                "I start it with `vllm serve /models/Qwen3.6-35B-A3B` with `--gpu-memory-utilization 0.85` and"
                        + " `--tensor-parallel-size 8` in Docker. The docs say `--enforce-eager` may help.", // 1
                "",
                "```",
                "INFO 05-12 03:14:31 [model_runner_v1.py:1347] Loading model weights took 15.2681 GB",        // 4
                "```"));
        assertThat(named(f, "memory_utilization")).singleElement().satisfies(o -> {
            assertThat(o.value()).isEqualTo(0.85);
            assertThat(o.line()).isEqualTo(1);
        });
        assertThat(named(f, "tensor_parallel_size")).singleElement().satisfies(o -> assertThat(o.value()).isEqualTo(8));
        assertThat(named(f, "enforce_eager")).isEmpty();
        // without a joining word ("without" is not "with"), a flag span is not the command's
        EvidenceFile without = read(List.of("I run `vllm serve /models/Qwen3-8B` without `--gpu-memory-utilization 0.5`."));
        assertThat(named(without, "memory_utilization")).isEmpty();
    }
}

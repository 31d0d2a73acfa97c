package io.hbmledger.evidence.paste;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Cases;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shared cases as a folder of attachments: case.md (the worked answer) is a write-up about
 * the other files, the user's own texts beside it (description-excerpt.md, the resolution
 * comment, the logs and tables) are evidence. Read in place from ../shared/cases.
 */
class WorkedAnswerTest {

    private static String text(Path p) throws Exception {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    /** The names of the other files of a case folder. */
    private static List<String> others(Path file) throws Exception {
        try (Stream<Path> s = Files.list(file.getParent())) {
            return s.filter(p -> !p.equals(file)).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void eachCaseMdIsAWriteUpNamingItsEvidence() throws Exception {
        // 8621's case.md line 2: "Evidence here: `npu-smi.txt` ..., `engine-error-4th-instance.log` ...,
        // `description-excerpt.md` ..."; its first answer label is line 10, "**What a correct per-device ledger says ...**"
        Path c8621 = Cases.file("ascend-8621-four-instances-one-910b2", "case.md");
        WorkedAnswer.Verdict v = WorkedAnswer.of(text(c8621), others(c8621)).orElseThrow();
        assertThat(v.named()).containsExactly("description-excerpt.md", "engine-error-4th-instance.log", "npu-smi.txt");
        assertThat(v.answerLine()).isEqualTo(10);
        assertThat(v.answerText()).isEqualTo("**What a correct per-device ledger says (NPU 0 of the container's view):**");
        // 8809: names npu-smi.txt and resolution-comment-excerpt.md on line 3, answer label on line 9
        Path c8809 = Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "case.md");
        WorkedAnswer.Verdict v2 = WorkedAnswer.of(text(c8809), others(c8809)).orElseThrow();
        assertThat(v2.named()).containsExactly("npu-smi.txt", "resolution-comment-excerpt.md");
        assertThat(v2.answerLine()).isEqualTo(9);
        // 13882: names startup.log on line 3, answer label on line 9
        Path c13882 = Cases.file("vllm-13882-rtx4060-8gb-negative-kv", "case.md");
        WorkedAnswer.Verdict v3 = WorkedAnswer.of(text(c13882), others(c13882)).orElseThrow();
        assertThat(v3.named()).containsExactly("startup.log");
        assertThat(v3.answerLine()).isEqualTo(9);
        assertThat(v3.reason()).startsWith("a write-up about the folder's other files, not evidence: it names startup.log"
                + " and answers at line 9");
    }

    @Test
    void theUsersOwnTextsAreEvidence() throws Exception {
        for (Path p : List.of(Cases.file("ascend-8621-four-instances-one-910b2", "description-excerpt.md"),
                Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "resolution-comment-excerpt.md"),
                Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "npu-smi.txt"),
                Cases.file("vllm-13882-rtx4060-8gb-negative-kv", "startup.log"))) {
            assertThat(WorkedAnswer.of(text(p), others(p))).as(p.toString()).isEmpty();
        }
    }

    @Test
    void bothSignsAreNeeded() throws Exception {
        Path c = Cases.file("vllm-13882-rtx4060-8gb-negative-kv", "case.md");
        // without the files it names beside it (case.md analysed on its own), it is read as given
        assertThat(WorkedAnswer.of(text(c), List.of("other.log"))).isEmpty();
        // an issue that names its attachment but answers nothing is evidence
        assertThat(WorkedAnswer.of("The log is in startup.log, and the KV cache is -1.05GiB. Why?\n", List.of("startup.log")))
                .isEmpty();
    }

    /** Another file of a case folder by name, as the folder reader hands it over. */
    private static java.util.function.Function<String, String> beside(Path file) {
        return name -> {
            try {
                return text(file.resolveSibling(name));
            } catch (Exception e) {
                return null;
            }
        };
    }

    @Test
    void theCaseMdsStayWriteUpsWhenTheirEvidenceIsRead() throws Exception {
        for (String c : List.of("ascend-8621-four-instances-one-910b2", "ascend-8809-910b4-32gb-vllm-plus-embedding-service",
                "vllm-13882-rtx4060-8gb-negative-kv")) {
            Path md = Cases.file(c, "case.md");
            assertThat(WorkedAnswer.of(text(md), others(md), beside(md))).as(c).isPresent();
        }
        // a write-up that quotes the engine's error line in a fence quotes the log beside it: still a write-up
        Path md = Cases.file("ascend-8621-four-instances-one-910b2", "case.md");
        String quoting = text(md) + "\n```\n(EngineCore_DP0 pid=2198) ValueError: Free memory on device (27.18/60.96 GiB) on"
                + " startup is less than desired GPU memory utilization (0.9, 54.86 GiB). Decrease GPU memory utilization or"
                + " reduce GPU memory used by other processes.\n```\n";
        assertThat(WorkedAnswer.of(quoting, others(md), beside(md))).isPresent();
        // nor does a markdown table of its own figures make it evidence (case 8621's ledger as a table)
        String table = text(md) + "\n| device | capacity | used | free |\n|---|---|---|---|\n| npu:0 | 64.00 | 58.47 | 5.53 |\n";
        assertThat(WorkedAnswer.of(table, others(md), beside(md))).isPresent();
    }

    @Test
    void anIssueWithItsOwnOutputAndAnAnswerHeadingIsEvidence() throws Exception {
        // a user's issue (vLLM's template headings) naming its attachment, with a log of its own in a
        // fence and a heading that holds "Answer": the log is in no file of the folder, so the text
        // is the user's evidence, not a write-up about npu-smi.txt
        Path smi = Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "npu-smi.txt");
        String issue = "### Your current environment\n\nThe output of `npu-smi info` is attached as npu-smi.txt.\n\n"
                + "### 🐛 Describe the bug\n\n```\n"
                + "INFO 01-09 10:12:03 worker.py:241] model weights take 14.25GiB; non_torch_memory takes 0.53GiB;"
                + " PyTorch activation peak memory takes 1.41GiB; the rest of the memory reserved for KV Cache is 38.67GiB.\n"
                + "```\n\n### Answer I got from the docs chatbot\n\nIt said to lower gpu_memory_utilization.\n";
        List<String> others = List.of("npu-smi.txt");
        // without the attachment's text to compare with, its log lines count as its own too
        assertThat(WorkedAnswer.of(issue, others, name -> null)).isEmpty();
        assertThat(WorkedAnswer.of(issue, others, beside(smi))).isEmpty();
        // the same text without output lines of its own is a write-up about npu-smi.txt
        String prose = issue.replaceAll("(?s)```.*?```", "(log lost)");
        assertThat(WorkedAnswer.of(prose, others, beside(smi))).get().extracting(WorkedAnswer.Verdict::answerLine)
                .isEqualTo(9);
    }
}

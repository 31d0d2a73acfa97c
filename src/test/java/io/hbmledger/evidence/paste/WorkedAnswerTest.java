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
}

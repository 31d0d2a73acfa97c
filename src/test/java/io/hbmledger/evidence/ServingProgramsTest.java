package io.hbmledger.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Serving programs other than vLLM, as prose and process tables name them. */
class ServingProgramsTest {

    private static List<String> written(String line) {
        return ServingPrograms.in(line).stream().map(ServingPrograms.Named::written).toList();
    }

    @Test
    void namesInProseKeepTheirImageTag() {
        // vllm-ascend #8809's resolution comment, line 1 as posted
        String line = "该问题经过测试。最终得到解决。问题在mis-tei侧，镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后解决。最终执行如下，供参考：";
        assertThat(ServingPrograms.in(line)).extracting(ServingPrograms.Named::program)
                .containsOnly("MIS-TEI (text-embeddings-inference)");
        assertThat(written(line)).containsExactly("mis-tei", "mis-tei:7.2.RC1-800I-A2-aarch64");
        assertThat(written("we run ghcr.io/huggingface/text-embeddings-inference:1.5 and Ollama on the same card"))
                .containsExactly("text-embeddings-inference:1.5", "Ollama");
        // the acronym only in capitals; no program inside other words
        assertThat(written("a TEI container beside vLLM")).containsExactly("TEI");
        assertThat(written("protein folding, the tei of a word, vllm-ascend:v0.18.0rc1")).isEmpty();
    }

    @Test
    void processNamesAsTablesListThem() {
        assertThat(ServingPrograms.process("/usr/local/bin/text-embeddings-router")).get()
                .extracting(ServingPrograms.Named::program).isEqualTo("TEI (text-embeddings-inference)");
        assertThat(ServingPrograms.process("ollama")).get().extracting(ServingPrograms.Named::program).isEqualTo("Ollama");
        assertThat(ServingPrograms.process("tritonserver")).isPresent();
        assertThat(ServingPrograms.process("python3")).isEmpty();
        assertThat(ServingPrograms.process("VLLM::EngineCore")).isEmpty();
        assertThat(ServingPrograms.process(null)).isEmpty();
    }

    /** A program's short name is data beside its usual name, not cut from it. */
    @Test
    void shortNamesBesideUsualNames() {
        String line = "该问题经过测试。最终得到解决。问题在mis-tei侧，镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后解决。";
        String program = ServingPrograms.in(line).get(0).program();
        assertThat(program).isEqualTo("MIS-TEI (text-embeddings-inference)");
        assertThat(ServingPrograms.shortName(program)).isEqualTo("MIS-TEI");
        assertThat(ServingPrograms.shortName("TGI (text-generation-inference)")).isEqualTo("TGI");
        assertThat(ServingPrograms.shortName("Ollama")).isEqualTo("Ollama");
        // a name the list does not hold stands for itself, brackets and all
        assertThat(ServingPrograms.shortName("Foo (bar)")).isEqualTo("Foo (bar)");
    }
}

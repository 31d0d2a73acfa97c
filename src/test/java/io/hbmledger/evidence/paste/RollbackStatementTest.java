package io.hbmledger.evidence.paste;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.testing.Cases;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A fix reported as rolling a serving program back, in prose. */
class RollbackStatementTest {

    private static List<Observation> read(String line) {
        return RollbackStatement.read(List.of(line), 1, 1);
    }

    /** vllm-ascend #8809's resolution, line 1: "镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后解决". */
    @Test
    void theResolutionOf8809() throws Exception {
        List<String> lines = TextLines.split(Files.readString(
                Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "resolution-comment-excerpt.md")));
        List<Observation> fix = RollbackStatement.read(lines, 1, lines.size());
        assertThat(fix).hasSize(1);
        assertThat(fix.get(0).quantity()).isEqualTo(Quantity.ROLLBACK_FIX);
        assertThat(fix.get(0).line()).isEqualTo(1);
        assertThat(fix.get(0).text()).isEqualTo("mis-tei:7.2.RC1-800I-A2-aarch64");
        assertThat(fix.get(0).context().component()).isEqualTo("MIS-TEI (text-embeddings-inference)");
    }

    @Test
    void theVersionAfterToWhenTheNameCarriesNone() {
        List<Observation> fix = read("Rolling TEI back to 1.5 fixed it, vLLM untouched.");
        assertThat(fix).extracting(Observation::text).containsExactly("1.5");
        assertThat(fix.get(0).context().component()).isEqualTo("TEI (text-embeddings-inference)");
    }

    /** A rollback that did not help, one without a fix, one of no serving program: nothing. */
    @Test
    void noFixNoStatement() {
        assertThat(read("镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后仍然无法启动")).isEmpty();
        assertThat(read("I rolled TEI back to 1.5 but it still fails")).isEmpty();
        assertThat(read("镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64")).isEmpty();
        assertThat(read("rolled the driver back to 24.1.0 and it worked")).isEmpty();
    }
}

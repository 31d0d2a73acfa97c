package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The text views of analyze on the bundled A3 example: --explain one component, --format html, a bad component. */
class AnalyzeViewsTest {

    private static final String A3 = "examples/a3-llama3.1-8b-eagle3";

    @Test
    void explainPrintsOneComponentWithItsSource() {
        CliRun r = CliRun.of("analyze", A3, "--no-write", "--explain", "weights");
        assertThat(r.exit()).as(r.err()).isZero();
        // the log's own line: 15.7847 GB is GiB in vLLM's wording, 15.78 rounded
        assertThat(r.out()).startsWith("weights on each device of " + A3 + " (GiB)")
                .contains("npu:0/chip:0  15.78  reported  at startup")
                .contains("source: evidence/vllm-startup.log:46 \"15.7847 GB\"");
    }

    @Test
    void explainOfAnUnknownComponentNamesTheChoices() {
        CliRun r = CliRun.of("analyze", A3, "--no-write", "--explain", "hbm");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("--explain hbm: no such component").contains("weights, kv_cache");
    }

    @Test
    void htmlIsOneSelfContainedPage() {
        CliRun r = CliRun.of("analyze", A3, "--no-write", "--format", "html");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("<!DOCTYPE html>").contains("<style>").contains("prefers-color-scheme:dark")
                .doesNotContain("src=\"http", "href=\"http", "<script src", "<link ");
        // the weights segment of npu:0 carries its exact bytes (15.7847 GiB as vLLM wrote it)
        assertThat(r.out()).contains("data-component=\"weights\" data-bytes=\"16948692569\"");
    }
}

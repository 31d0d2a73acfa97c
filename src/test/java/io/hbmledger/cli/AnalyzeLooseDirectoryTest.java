package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11: a folder of evidence as people attach it (no run.json), with a file that is not
 * evidence among the rest: the rest is read, the stranger is named as skipped, and the moment of
 * a sample is taken from its file name and said. Files from the bundled A3 example.
 */
class AnalyzeLooseDirectoryTest {

    @TempDir
    Path tmp;

    @Test
    void aFolderWithoutRunJsonIsReadAndTheStrangerSkipped() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("attached"));
        Path example = Path.of("examples/a3-llama3.1-8b-eagle3/evidence");
        Files.copy(example.resolve("npu-smi-idle.txt"), dir.resolve("npu-smi-idle.txt"));
        Files.copy(example.resolve("vllm-startup.log"), dir.resolve("vllm-startup.log"));
        Files.write(dir.resolve("screenshot.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 1, 2});

        CliRun r = CliRun.of("analyze", "--format", "json", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("skipped", "screenshot.png");
        JsonNode report = new ObjectMapper().readTree(r.out());
        assertThat(report.get("notes").toString())
                .contains("screenshot.png")
                .contains("npu-smi-idle.txt taken at baseline (from its file name");
        // the idle sample is the baseline: 3412 MiB on npu:0/chip:0 (line 9 of the example's table)
        JsonNode device = report.get("devices").get(0);
        JsonNode baseline = null;
        for (JsonNode e : device.get("entries")) {
            if (e.get("component").asText().equals("driver_baseline")) {
                baseline = e;
            }
        }
        assertThat(baseline).isNotNull();
        assertThat(baseline.get("bytes").asLong()).isEqualTo(3412L << 20);
    }

    @Test
    void nothingUsableIsStillRefused() throws Exception {
        Path png = Files.write(tmp.resolve("only.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 1, 2});
        CliRun r = CliRun.of("analyze", png.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("only.png").contains("no ledger written");
        assertThat(r.out()).isEmpty();
    }

    /** `cat npu-smi.txt | hbm-ledger analyze -`: the table piped in is cited as "-". */
    @Test
    void standardInput() throws Exception {
        byte[] table = Files.readAllBytes(Path.of("examples/a3-llama3.1-8b-eagle3/evidence/npu-smi-idle.txt"));
        java.io.InputStream saved = System.in;
        try {
            System.setIn(new java.io.ByteArrayInputStream(table));
            CliRun r = CliRun.of("analyze", "--format", "json", "-");
            assertThat(r.exit()).as(r.err()).isZero();
            JsonNode device = new ObjectMapper().readTree(r.out()).get("devices").get(0);
            // line 9 of the table: 3412 / 65536 MB on npu:0/chip:0
            assertThat(device.get("capacity_bytes").asLong()).isEqualTo(65536L << 20);
            assertThat(device.get("capacity_source").get("file").asText()).isEqualTo("-");
            assertThat(device.get("capacity_source").get("line").asInt()).isEqualTo(9);
        } finally {
            System.setIn(saved);
        }
    }
}

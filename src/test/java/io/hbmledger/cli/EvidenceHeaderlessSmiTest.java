package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hbm-ledger evidence --format json} on Atlas A3 device rows pasted without npu-smi's
 * header (lines 8-13 of the 2667 table, cut in place): the values carry
 * {@code "confidence": "inferred"}; the same rows read under their header carry none.
 */
class EvidenceHeaderlessSmiTest {

    @TempDir
    Path tmp;

    @Test
    void headerlessRowsAreMarkedInferredInTheJson() throws Exception {
        Path table = Corpus.file("npu-smi/vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt");
        List<String> lines = Files.readAllLines(table, StandardCharsets.UTF_8);
        Path rows = tmp.resolve("rows.txt");
        Files.write(rows, lines.subList(7, 13), StandardCharsets.UTF_8);
        CliRun r = CliRun.of("evidence", "--format", "json", rows.toString(), table.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode files = new ObjectMapper().readTree(r.out()).get("files");

        JsonNode pasted = files.get(0);
        assertThat(pasted.get("format").asText()).isEqualTo("npu-smi-info");
        // pasted line 5: "| 1     1 | 0000:9F:00.0 | 0   0 / 0   3189 / 65536 |": 3189 x 1048576 = 3343908864 B
        JsonNode used = pasted.get("observations").get(2);
        assertThat(used.get("quantity").asText()).isEqualTo("hbm_used");
        assertThat(used.get("bytes").asLong()).isEqualTo(3_343_908_864L);
        assertThat(used.get("line").asInt()).isEqualTo(5);
        assertThat(used.get("device").asText()).isEqualTo("npu:0/chip:1");
        assertThat(used.get("device_id").asInt()).isEqualTo(1);
        assertThat(used.get("confidence").asText()).isEqualTo("inferred");
        assertThat(pasted.get("warnings").get(0).asText()).startsWith("line 1: rows without npu-smi's header (lines 1-2, 4-5)");

        // the whole table, header included: line 12 holds the same value, read under its own header
        JsonNode headed = files.get(1).get("observations");
        assertThat(headed).anySatisfy(o -> {
            assertThat(o.get("line").asInt()).isEqualTo(12);
            assertThat(o.get("bytes").asLong()).isEqualTo(3_343_908_864L);
        });
        assertThat(headed).allSatisfy(o -> assertThat(o.has("confidence")).isFalse());
    }

    /**
     * NPU 0's pair and its process row copied out of the 264 table (lines 8-9 and 59), no header:
     * the ledger's other_processes and outside_processes are built on inferred rows and say so.
     */
    @Test
    void headerlessProcessRowsGiveInferredProcessLines() throws Exception {
        List<String> lines = Files.readAllLines(Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt"),
                StandardCharsets.UTF_8);
        Path rows = tmp.resolve("rows.txt");
        Files.write(rows, List.of(lines.get(7), lines.get(8), lines.get(58)), StandardCharsets.UTF_8);
        CliRun r = CliRun.of("analyze", "--no-write", "--format", "json", rows.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("line 3: process rows without npu-smi's header (line 3)");
        JsonNode device = new ObjectMapper().readTree(r.out()).get("devices").get(0);
        JsonNode other = AnalyzeFindingsTest.entry(device, "other_processes");
        // "| 0  0 | 418635 | vllm | 56057 |": 56057 x 1048576 = 58,780,024,832 B
        assertThat(other.get("bytes").asLong()).isEqualTo(58_780_024_832L);
        assertThat(other.get("confidence").asText()).isEqualTo("inferred");
        // used 59356 MiB - 56057 MiB = 3299 MiB = 3,459,252,224 B held outside any process
        assertThat(AnalyzeFindingsTest.entry(device, "outside_processes").get("bytes").asLong()).isEqualTo(3_459_252_224L);
    }
}

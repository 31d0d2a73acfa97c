package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Labels that must say what the numbers are: rows of a CSV, devices without data, a start that failed. */
class LedgerLabelsTest {

    private static final String CSV = "nvidia-smi/query-gpu-csv_2gpu_index_used_total.csv";

    private final ObjectMapper mapper = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void evidenceTextCallsCsvDataRowsRowsAndTextLinesLines() {
        String csv = Corpus.file(CSV).toString();
        CliRun r = CliRun.of("evidence", csv);
        // the CSV's line 1 is its header "index, memory.used [MiB], memory.total [MiB]"; data row 1 is line 2
        assertThat(r.out()).containsPattern("\\n  row 1  fb_used\\s+0\\.10 GiB \\(108003328 B\\)\\s+\"103 MiB\"")
                .doesNotContain("line 1 ");
        String smi = Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt").toString();
        assertThat(CliRun.of("evidence", smi).out()).containsPattern("\\n  line 9\\s+hbm_used");
    }

    @Test
    void summaryCallsADeviceWithoutAnyDataNoDataNotNoWarnings() {
        String csv = Corpus.file(CSV).toString();
        // TP 8 over a 2-GPU sample: devices 2-7 have no row at all (named as nvidia-smi names GPU 2)
        CliRun r = CliRun.of("analyze", csv, "--moment", csv + "=ready", "--tp", "8", "--detail");
        assertThat(r.out()).containsPattern("gpu:2\\s+2\\s+unknown\\s+unknown\\s+-\\s+unknown\\s+no data");
        assertThat(r.out()).containsPattern("gpu:0\\s+0\\s+15\\.92\\s+0\\.10\\s+-\\s+0\\.10\\s+no warnings");
    }

    /** The bundled A3 example as a collection that failed while waiting for ready. */
    private Path failedRun() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("failed"));
        Path example = Path.of("examples", "a3-llama3.1-8b-eagle3");
        Files.createDirectories(run.resolve("evidence"));
        for (String f : new String[] {"npu-smi-idle.txt", "vllm-startup.log"}) {
            Files.copy(example.resolve("evidence").resolve(f), run.resolve("evidence").resolve(f));
        }
        ObjectNode rj = (ObjectNode) mapper.readTree(example.resolve("run.json").toFile());
        rj.put("status", "failed").put("phase", "ready");
        rj.putArray("incomplete_reasons").add("server failed to start: exited with code 1");
        rj.putObject("moments").put("baseline", "2026-11-29T10:00:00Z").put("start", "2026-11-29T10:00:05Z");
        Files.writeString(run.resolve("run.json"), mapper.writeValueAsString(rj));
        return run;
    }

    @Test
    void aCollectionThatNeverReachedReadyIsNotLabelledReady() throws Exception {
        Path run = failedRun();
        CliRun t = CliRun.of("analyze", run.toString(), "--no-write");
        assertThat(t.out()).contains("status: failed", "moment: failed_start").doesNotContain("moment: ready");
        JsonNode r = mapper.readTree(CliRun.of("analyze", run.toString(), "--no-write", "--format", "json").out());
        assertThat(r.get("devices").get(0).get("moment").asText()).isEqualTo("failed_start");
        // the same run with its ready moment recorded (failed later, e.g. during the load) stays "ready"
        ObjectNode rj = (ObjectNode) mapper.readTree(run.resolve("run.json").toFile());
        ((ObjectNode) rj.get("moments")).put("ready", "2026-11-29T10:01:00Z");
        Files.writeString(run.resolve("run.json"), mapper.writeValueAsString(rj));
        assertThat(CliRun.of("analyze", run.toString(), "--no-write").out()).contains("moment: ready");
    }

    @Test
    void aLogThatRefusedToStartForWantOfKvMemoryIsAFailedStart() throws Exception {
        // vLLM V1 prints a negative figure, then raises "No available memory for the cache blocks"
        Path log = tmp.resolve("serve.log");
        Files.writeString(log, "INFO 11-29 10:00:41 [gpu_model_runner.py:1892] Model loading took 60.1 GiB and 21.3 seconds\n"
                + "INFO 11-29 10:00:55 [gpu_worker.py:276] Available KV cache memory: -1.50 GiB\n"
                + "ERROR 11-29 10:00:55 [core.py:515] ValueError: No available memory for the cache blocks.\n");
        CliRun r = CliRun.of("analyze", log.toString(), "--moment", log + "=startup", "--detail");
        assertThat(r.out()).contains("status: failed", "moment: failed_start")
                .contains("the server did not start: vLLM found no memory left for the KV cache (" + log + ":2 \"-1.50 GiB\")");
    }
}

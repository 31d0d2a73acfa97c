package io.hbmledger.cli;

import static io.hbmledger.cli.AnalyzeFindingsTest.device;
import static io.hbmledger.cli.AnalyzeFindingsTest.entry;
import static io.hbmledger.cli.AnalyzeFindingsTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each TP worker's own figure reaches its own device, whatever worker name the vLLM build writes. */
class AnalyzeWorkerRanksTest {

    @TempDir
    Path tmp;

    /**
     * v0.10.0-v0.10.1 names workers {@code VllmWorker TP{t}} (multiproc_executor.py, {@code
     * decorate_logs(f"VllmWorker {suffix}")}); the lines are written as vLLM's logger and
     * _add_prefix print them, colour included.
     */
    @Test
    void vllmWorkerTpLabelsGiveEachDeviceItsOwnWeights() throws Exception {
        Path log = tmp.resolve("serve.log");
        Files.writeString(log, ""
                + "INFO 08-20 10:00:00 [api_server.py:1805] vLLM API server version 0.10.1\n"
                + "\u001b[1;36m(VllmWorker TP0 pid=4101)\u001b[0;0m INFO 08-20 10:00:41 [gpu_model_runner.py:1892]"
                + " Model loading took 7.1000 GiB and 3.2 seconds\n"
                + "\u001b[1;36m(VllmWorker TP1 pid=4102)\u001b[0;0m INFO 08-20 10:00:41 [gpu_model_runner.py:1892]"
                + " Model loading took 7.3000 GiB and 3.3 seconds\n");
        JsonNode r = json(CliRun.of("analyze", log.toString(), "--tp", "2", "--format", "json", "--no-write"));
        // 7.1 x 2^30 = 7,623,566,950.4; 7.3 x 2^30 = 7,838,315,315.2 (half-up)
        JsonNode w0 = entry(device(r, 0), "weights");
        JsonNode w1 = entry(device(r, 1), "weights");
        assertThat(w0.get("bytes").asLong()).isEqualTo(7_623_566_950L);
        assertThat(w0.get("sources").get(0).get("line").asInt()).isEqualTo(2);
        assertThat(w1.get("bytes").asLong()).isEqualTo(7_838_315_315L);
        assertThat(w1.get("sources").get(0).get("line").asInt()).isEqualTo(3);
        assertThat(w0.get("confidence").asText()).isEqualTo("reported");
    }
}

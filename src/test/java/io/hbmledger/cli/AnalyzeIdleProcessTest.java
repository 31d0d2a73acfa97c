package io.hbmledger.cli;

import static io.hbmledger.cli.AnalyzeFindingsTest.corpus;
import static io.hbmledger.cli.AnalyzeFindingsTest.device;
import static io.hbmledger.cli.AnalyzeFindingsTest.entry;
import static io.hbmledger.cli.AnalyzeFindingsTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * An idle sample (taken before the server started) that lists a process: that memory is the
 * process's, not the driver's. The corpus 312 table (vllm-ascend #312, 8 x 910B1) is the issue's
 * idle table; on NPU 0 (line 9: 3437 / 65536 MiB) it lists pid 641248, no name, 113 MiB (line 35).
 * The 264 table (vllm-ascend #264) lists pid 418635 "vllm" with 56057 MiB on NPU 0 (line 59) of
 * 59356 MiB used (line 9).
 */
class AnalyzeIdleProcessTest {

    private static final long MIB = 1L << 20;

    @Test
    void theIdleSamplesProcessIsOtherProcessesAndNotDriverOverhead() throws Exception {
        String idle = corpus(AnalyzeFindingsTest.T312);
        JsonNode r = json(CliRun.of("analyze", idle, "--moment", idle + "=baseline", "--devices", "0", "--format", "json"));
        JsonNode d0 = device(r, 0);
        // 3437 - 113 = 3324 MiB: the driver's share of the idle reading, the subtraction shown
        JsonNode driver = entry(d0, "driver_baseline");
        assertThat(driver.get("bytes").asLong()).isEqualTo(3324 * MIB);
        assertThat(driver.get("confidence").asText()).isEqualTo("measured");
        assertThat(driver.get("arithmetic").asText()).isEqualTo("used " + 3437 * MIB + " B - processes " + 113 * MIB
                + " B = " + 3324 * MIB + " B (3.25 GiB)");
        assertThat(driver.get("note").asText()).contains("pid 641248 without a name").doesNotContain("WARNING");
        // no sample at ready lists processes: the idle one's row is other_processes, inferred (it may have exited)
        JsonNode others = entry(d0, "other_processes");
        assertThat(others.get("bytes").asLong()).isEqualTo(113 * MIB);
        assertThat(others.get("confidence").asText()).isEqualTo("inferred");
        assertThat(others.get("sources").get(0).get("line").asInt()).isEqualTo(35);
        // the answer names the process that holds it
        JsonNode tenant = finding(r, "other_tenant");
        assertThat(tenant.get("devices").toString()).contains("npu:0/chip:0");
        assertThat(tenant.get("text").asText()).contains("was not idle before the server started",
                "pid 641248 without a name (0.11 GiB)", "not the driver's");
    }

    @Test
    void aReadySampleWithItsOwnProcessTableKeepsTheOtherProcessesLine() throws Exception {
        String idle = corpus(AnalyzeFindingsTest.T264);
        String ready = corpus(AnalyzeFindingsTest.T312);
        JsonNode r = json(CliRun.of("analyze", idle, ready, "--moment", idle + "=baseline", "--moment", ready + "=ready",
                "--devices", "0", "--format", "json"));
        JsonNode d0 = device(r, 0);
        // the idle 264 table: 59356 - 56057 = 3299 MiB of driver; pid 418635's 56057 MiB are not the driver's
        assertThat(entry(d0, "driver_baseline").get("bytes").asLong()).isEqualTo(3299 * MIB);
        assertThat(entry(d0, "driver_baseline").get("note").asText()).contains("pid 418635 vllm 54.74 GiB");
        // the ready 312 table lists its own processes: only its pid 641248 (113 MiB) is other_processes, measured
        JsonNode others = entry(d0, "other_processes");
        assertThat(others.get("bytes").asLong()).isEqualTo(113 * MIB);
        assertThat(others.get("confidence").asText()).isEqualTo("measured");
        assertThat(r.get("findings").toString()).doesNotContain("418635");
    }

    private static JsonNode finding(JsonNode r, String kind) {
        for (JsonNode f : r.get("findings")) {
            if (f.get("kind").asText().equals(kind)) {
                return f;
            }
        }
        throw new AssertionError("no " + kind + " finding in " + r.get("findings"));
    }
}

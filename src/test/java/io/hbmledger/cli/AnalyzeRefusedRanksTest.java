package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every TP rank of a vLLM V1 start logs its own refusal (vllm v1/worker/gpu_worker.py init_device,
 * later v1/worker/utils.py request_memory: "Free memory on device cuda:N (free/total GiB) on
 * startup is less than desired GPU memory utilization (u, requested GiB)", one line per worker, as
 * public reports print them): the finding is said once, naming the ranks, with the figures of the
 * rank that had the least free. Figures written by hand.
 */
class AnalyzeRefusedRanksTest {

    private static final double GIB = 1L << 30;

    @TempDir
    Path tmp;

    private static String refusal(int rank, String free) {
        return "(Worker_TP" + rank + " pid=" + (2101 + rank) + ") ERROR 10-23 15:14:56 [multiproc_executor.py:597] ValueError: Free"
                + " memory on device cuda:" + rank + " (" + free + "/79.19 GiB) on startup is less than desired GPU memory"
                + " utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.";
    }

    private List<JsonNode> refused(String... free) throws Exception {
        List<String> log = new ArrayList<>(List.of("(EngineCore_DP0 pid=2001) INFO 10-23 15:14:50 [core.py:77] Initializing a V1 LLM"
                + " engine (v0.11.0) with config: model='Qwen/Qwen3-8B', tensor_parallel_size=" + free.length
                + ", pipeline_parallel_size=1"));
        for (int r = 0; r < free.length; r++) {
            log.add(refusal(r, free[r]));
        }
        Path p = Files.write(tmp.resolve("serve.log"), log);
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of("analyze", p.toString(), "--no-write", "--format", "json"));
        List<JsonNode> out = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if (f.get("kind").asText().equals("start_refused")) {
                out.add(f);
            }
        });
        return out;
    }

    private static double gib(JsonNode finding, String name) {
        for (JsonNode f : finding.get("figures")) {
            if (f.get("name").asText().equals(name)) {
                return f.has("bytes") ? f.get("bytes").asLong() / GIB : f.get("value").asDouble();
            }
        }
        throw new AssertionError("no " + name + " in " + finding);
    }

    @Test
    void ranksWithDifferentFreeMemoryGiveOneFindingWithTheLeastFree() throws Exception {
        List<JsonNode> f = refused("20.11", "19.87");
        assertThat(f).hasSize(1);
        JsonNode one = f.get(0);
        assertThat(one.get("devices").toString()).contains("gpu:0", "gpu:1");
        assertThat(one.get("text").asText()).startsWith("The start was refused on ranks 0 and 1, each on its own device"
                + " (free at start: rank 0 20.11 GiB; the figures are rank 1's, the least free): the server asked 71.27 GiB");
        assertThat(gib(one, "shortfall")).isCloseTo(51.40, within(0.006));                       // 71.27 - 19.87
        assertThat(gib(one, "largest_utilization_that_starts")).isEqualTo(0.25);                 // 19.87 / 79.19 = 0.2509, down
    }

    @Test
    void fourRanksWithTheSameFiguresAreNamedOnce() throws Exception {
        List<JsonNode> f = refused("20.11", "20.11", "20.11", "20.11");
        assertThat(f).hasSize(1);
        assertThat(f.get(0).get("text").asText()).startsWith("The start was refused on ranks 0-3, each with the same figures:");
        assertThat(f.get(0).get("devices")).hasSize(4);
        assertThat(gib(f.get(0), "shortfall")).isCloseTo(51.16, within(0.006));                  // 71.27 - 20.11
    }
}

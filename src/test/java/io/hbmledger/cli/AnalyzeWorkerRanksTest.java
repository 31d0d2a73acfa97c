package io.hbmledger.cli;

import static io.hbmledger.cli.AnalyzeFindingsTest.device;
import static io.hbmledger.cli.AnalyzeFindingsTest.entry;
import static io.hbmledger.cli.AnalyzeFindingsTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.hbmledger.evidence.vllmlog.DataParallelLogs;
import io.hbmledger.testing.Corpus;
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

    /**
     * Two dense DP replicas of TP 2 in one log (synthesised, see {@link DataParallelLogs}): both have
     * a Worker_TP0 and a Worker_TP1, with their own pids, at the same time. That is one server
     * start: every figure stays in, and as no line tells which replica a worker serves, no figure
     * gets a rank; the ledger applies them to every rank and says which workers printed what.
     */
    @Test
    void denseDpReplicasAreOneStartAndTheirWorkersStayRankless() throws Exception {
        Path log = tmp.resolve("dp.log");
        Files.writeString(log, DataParallelLogs.DENSE_DP2_TP2);
        JsonNode r = json(CliRun.of("analyze", log.toString(), "--tp", "2", "--dp", "2", "--format", "json", "--no-write"));
        assertThat(r.get("notes").toString()).doesNotContain("server starts");
        for (int d = 0; d < 4; d++) {
            JsonNode kv = entry(device(r, d), "kv_cache");
            // the larger of 58.31 GiB (lines 19-20, replica of pids 1200/1201) and 58.02 GiB (lines 23-24):
            // 58.31 x 2^30 = 62,609,885,757.44
            assertThat(kv.get("bytes").asLong()).isEqualTo(62_609_885_757L);
            assertThat(kv.get("confidence").asText()).isEqualTo("inferred");
            assertThat(kv.get("note").asText()).contains("workers without a rank label printed 58.31 GiB, 58.31 GiB, 58.02 GiB, 58.02 GiB");
        }
    }

    /**
     * The same start with each worker line nested under its engine core's prefix
     * ({@code (EngineCore_DP1 pid=1101) (Worker_TP0 pid=1210) ...}): the replica is told, so
     * Worker_TP0 of DP rank 1 is rank 1 x TP 2 + 0 = 2, and gets its own line.
     */
    @Test
    void aWorkerUnderItsEngineCoresPrefixGetsItsReplicasRank() throws Exception {
        Path log = tmp.resolve("dp-nested.log");
        Files.writeString(log, DataParallelLogs.nested(DataParallelLogs.DENSE_DP2_TP2));
        JsonNode r = json(CliRun.of("analyze", log.toString(), "--tp", "2", "--dp", "2", "--format", "json", "--no-write"));
        // 58.31 x 2^30 = 62,609,885,757.44; 58.02 x 2^30 = 62,298,500,628.48
        long[] kv = {62_609_885_757L, 62_609_885_757L, 62_298_500_628L, 62_298_500_628L};
        int[] line = {19, 20, 23, 24};
        for (int d = 0; d < 4; d++) {
            JsonNode e = entry(device(r, d), "kv_cache");
            assertThat(e.get("bytes").asLong()).as("device %d", d).isEqualTo(kv[d]);
            assertThat(e.get("sources").get(0).get("line").asInt()).as("device %d", d).isEqualTo(line[d]);
            assertThat(e.get("confidence").asText()).isEqualTo("reported");
        }
    }

    /**
     * The V0 log of vLLM PR 14447: three {@code VllmWorkerProcess} workers (pids 521, 507, 577)
     * each print "model weights take 21.21GiB" (lines 1, 4, 7); V0 labels carry no rank. The note
     * must say three workers printed it, not that one figure serves every rank.
     */
    @Test
    void severalRanklessWorkersWithTheSameFigureAreNamedAsSuch() throws Exception {
        Path log = Corpus.file("vllm-log/vllm-pr14447_tp_workers_interleaved_v0_summary.log");
        JsonNode r = json(CliRun.of("analyze", log.toString(), "--tp", "4", "--format", "json", "--no-write"));
        JsonNode w = entry(device(r, 2), "weights");
        // 21.21 x 2^30 = 22,548,578,304 + 225,485,783.04 = 22,774,064,087.04 -> 22,774,064,087 B
        assertThat(w.get("bytes").asLong()).isEqualTo(22_774_064_087L);
        assertThat(w.get("confidence").asText()).isEqualTo("inferred");
        assertThat(w.get("note").asText()).contains("3 workers without a rank label (VllmWorkerProcess pid=521, "
                + "VllmWorkerProcess pid=507, VllmWorkerProcess pid=577) printed the same figure")
                .contains("applied to all 4 ranks, here rank 2").doesNotContain("one figure from");
    }
}

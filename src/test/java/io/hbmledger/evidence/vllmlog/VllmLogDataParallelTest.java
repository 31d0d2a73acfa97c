package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Data-parallel replicas in one log: several processes of one worker label at once are one
 * server start, not restarts; the DP replica of a worker is kept only where the log tells it.
 * The log is {@link DataParallelLogs#DENSE_DP2_TP2} (synthesised, see there).
 */
class VllmLogDataParallelTest {

    private static List<Observation> obs(String text) {
        return VllmLogParser.parse(text).observations();
    }

    private static List<Integer> starts(String text) {
        return obs(text).stream().filter(o -> o.quantity() == Quantity.SERVER_START).map(Observation::line).toList();
    }

    private static List<Observation> of(String text, String quantity) {
        return obs(text).stream().filter(o -> o.quantity().contractName().equals(quantity)).toList();
    }

    @Test
    void denseReplicasWithTheSameWorkerLabelsAreOneStart() {
        // line 1 API server version, line 2 non-default args, line 4 EngineCore_DP0's engine line;
        // Worker_TP0 pid=1200 and pid=1210 are the two replicas' TP rank 0, both alive throughout
        assertThat(starts(DataParallelLogs.DENSE_DP2_TP2)).containsExactly(1, 2, 4);
    }

    @Test
    void workersOfDenseReplicasKeepTheirOwnLabelAndNoDpRank() {
        // nothing in a worker's own lines says which replica it serves: "is assigned as DP rank 0"
        // (lines 5-8) is the rank inside its replica, 0 in both
        assertThat(of(DataParallelLogs.DENSE_DP2_TP2, "weights"))
                .extracting(Observation::line, x -> x.context().process(), x -> x.context().pid(), x -> x.context().dpRank())
                .containsExactly(
                        tuple(14, "Worker_TP0 pid=1200", 1200L, null),
                        tuple(15, "Worker_TP1 pid=1201", 1201L, null),
                        tuple(17, "Worker_TP0 pid=1210", 1210L, null),
                        tuple(18, "Worker_TP1 pid=1211", 1211L, null));
    }

    @Test
    void aWorkerNestedInItsEngineCoresPrefixBelongsToThatReplica() {
        String log = DataParallelLogs.nested(DataParallelLogs.DENSE_DP2_TP2);
        assertThat(log.lines().toList().get(22)).startsWith("(EngineCore_DP1 pid=1101) (Worker_TP0 pid=1210) INFO");
        // 58.31 x 2^30 = 58 x 2^30 + 0.31 x 2^30 = 62,277,025,792 + 332,859,965.44 = 62,609,885,757.44
        // 58.02 x 2^30 = 62,277,025,792 + 21,474,836.48 = 62,298,500,628.48
        assertThat(of(log, "kv_cache_available"))
                .extracting(Observation::line, x -> x.context().process(), x -> x.context().pid(), x -> x.context().dpRank(), Observation::bytes)
                .containsExactly(
                        tuple(19, "Worker_TP0 pid=1200", 1200L, 0, 62_609_885_757L),
                        tuple(20, "Worker_TP1 pid=1201", 1201L, 0, 62_609_885_757L),
                        tuple(23, "Worker_TP0 pid=1210", 1210L, 1, 62_298_500_628L),
                        tuple(24, "Worker_TP1 pid=1211", 1211L, 1, 62_298_500_628L));
        // the engine cores' own lines have no enclosing engine core
        assertThat(of(log, "kv_cache_tokens")).extracting(x -> x.context().process(), x -> x.context().dpRank())
                .containsExactly(tuple("EngineCore_DP0 pid=1100", null), tuple("EngineCore_DP1 pid=1101", null));
        assertThat(starts(log)).containsExactly(1, 2, 4);
    }

    @Test
    void aWorkerThatRelabelsItselfIsTheInnerLabel() {
        // public vLLM issue log: "(Worker pid=312) (Worker_TP0 pid=312) INFO 03-01 11:11:32
        // [gpu_model_runner.py:4202] Starting to load model /models..." (decorate_logs called a
        // second time once the parallel groups exist); its figure is Worker_TP0's
        String line = "(Worker pid=312) (Worker_TP0 pid=312) INFO 03-01 11:12:40 [gpu_model_runner.py:4235] "
                + "Model loading took 33.6 GiB memory and 60.1 seconds";
        assertThat(of(line, "weights")).extracting(x -> x.context().process(), x -> x.context().pid(), x -> x.context().dpRank())
                .containsExactly(tuple("Worker_TP0 pid=312", 312L, null));
    }

    @Test
    void aGrepOfInterleavedReplicaFiguresIsOneStart() {
        // `grep -E "Model loading|KV cache memory"` of the log: no banner left, the two replicas'
        // Worker_TP0 alternate before either has its KV cache budget
        String grep = DataParallelLogs.DENSE_DP2_TP2.lines()
                .filter(l -> l.contains("Model loading") || l.contains("KV cache memory"))
                .reduce("", (a, l) -> a + l + "\n");
        assertThat(starts(grep)).isEmpty();
        assertThat(of(grep, "weights")).hasSize(4);
    }

    @Test
    void aWorkerLabelWithANewPidAfterItsStartUpEndedIsARestart() {
        // a pasted excerpt without banners: TP0 pid 4101 finished its start-up (KV cache budget,
        // graph pool); later a TP0 with pid 5101 loads the model again: the server was restarted
        String log = ""
                + "(Worker_TP0 pid=4101) INFO 10-20 09:00:26 [gpu_model_runner.py:2653] Model loading took 7.1694 GiB and 3.9 seconds\n"
                + "(Worker_TP1 pid=4102) INFO 10-20 09:00:26 [gpu_model_runner.py:2653] Model loading took 7.1694 GiB and 3.9 seconds\n"
                + "(Worker_TP0 pid=4101) INFO 10-20 09:00:40 [gpu_worker.py:298] Available KV cache memory: 58.31 GiB\n"
                + "(Worker_TP0 pid=4101) INFO 10-20 09:00:50 [gpu_model_runner.py:3480] Graph capturing finished in 9 secs, took 0.52 GiB\n"
                + "(Worker_TP1 pid=5102) INFO 10-20 11:13:02 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2.5-7B-Instruct...\n"
                + "(Worker_TP0 pid=5101) INFO 10-20 11:13:02 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2.5-7B-Instruct...\n"
                + "(Worker_TP0 pid=5101) INFO 10-20 11:13:07 [gpu_model_runner.py:2653] Model loading took 7.1694 GiB and 4.0 seconds\n";
        // TP1 (line 5) never printed a closing figure under pid 4102 (its KV line is rank 0's only
        // in later builds), so its new pid proves nothing; TP0's new pid (line 6) does
        assertThat(obs(log)).filteredOn(o -> o.quantity() == Quantity.SERVER_START)
                .extracting(Observation::line, Observation::text).containsExactly(tuple(6, "Worker_TP0 pid=5101"));
    }

    @Test
    void aRestartOfTheWholeDpServerIsSeenByItsBanner() {
        String twice = DataParallelLogs.DENSE_DP2_TP2 + DataParallelLogs.DENSE_DP2_TP2.replace("pid=12", "pid=22")
                .replace("pid=110", "pid=210").replace("pid=1000", "pid=2000");
        // the second copy starts at line 34
        assertThat(starts(twice)).containsExactly(1, 2, 4, 34, 35, 37);
    }

    @Test
    void anOldBuildsEngineLineOfDpRankOneIsNoStart() {
        // v0.8-0.9 named engine cores EngineCore_{index} and every one printed its engine line
        String log = "(EngineCore_0 pid=71) INFO 04-22 17:08:01 [core.py:58] Initializing a V1 LLM engine (v0.8.4) with config: model='m'\n"
                + "(EngineCore_1 pid=72) INFO 04-22 17:08:01 [core.py:58] Initializing a V1 LLM engine (v0.8.4) with config: model='m'\n";
        assertThat(starts(log)).containsExactly(1);
    }
}

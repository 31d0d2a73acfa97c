package io.hbmledger.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every worker label form vLLM writes (see {@link RankLabels} for the source of each), with the
 * rank worked out by hand: global rank = dp_rank x TP x PP + pp_rank x TP + tp_rank.
 */
class RankLabelsTest {

    @ParameterizedTest(name = "{0} under TP {1} PP {2} DP {3} -> {4}")
    @CsvSource(nullValues = "none", value = {
        // v0.10.2+ Worker_ names; a part is printed only when its group is larger than 1
        "Worker_TP3 pid=77,           4, 1, 1, 3",
        "Worker_DP1_TP1 pid=77,       2, 1, 2, 3",      // 1 x 2 + 1
        "Worker_DP1_TP0_EP2 pid=7,    2, 1, 2, 2",      // EP spans DP x TP: adds nothing
        "Worker_DP0_PP1_TP1 pid=7,    2, 2, 2, 3",      // 0 x 4 + 1 x 2 + 1
        "Worker_DP1_PP1_TP1 pid=7,    2, 2, 2, 7",      // 1 x 4 + 1 x 2 + 1
        "Worker_TP1_DCP1 pid=7,       2, 1, 1, 1",      // DCP splits the TP group
        "Worker_PP1 pid=7,            1, 2, 1, 1",      // TP 1: no _TP part, TP rank 0
        "Worker_DP1 pid=7,            1, 1, 2, 1",      // MoE DP, TP 1
        "Worker pid=7,                1, 1, 1, 0",      // every group of one
        "Worker pid=7,                4, 1, 1, none",   // before the groups exist: rank not told
        "Worker_TP1 pid=7,            2, 1, 2, none",   // dense DP drops _DP: the replica is not told
        "Worker_PCP1_TP0 pid=7,       2, 1, 1, none",   // prefill context parallel: not in a TP x DP layout
        // v0.10.0-v0.10.1 "VllmWorker {suffix}"; never names the DP replica
        "VllmWorker TP0 pid=1234,     2, 1, 1, 0",
        "VllmWorker TP1 pid=1234,     2, 1, 1, 1",
        "VllmWorker PP1_TP0 pid=9,    2, 2, 1, 2",      // 1 x 2 + 0
        "VllmWorker PP1 pid=9,        1, 2, 1, 1",
        "VllmWorker pid=9,            1, 1, 1, 0",
        "VllmWorker TP1 pid=9,        2, 1, 2, none",
        // v0.8-v0.9 "VllmWorker rank={rank}", the rank inside the DP replica
        "VllmWorker rank=2 pid=9,     4, 1, 1, 2",
        "VllmWorker rank=3 pid=9,     2, 2, 1, 3",      // PP 1, TP 1: 1 x 2 + 1
        "VllmWorker rank=0 pid=9,     2, 1, 2, none",
        // engine core: a worker rank only when it runs the worker itself (TP x PP = 1)
        "EngineCore_0 pid=1440043,    1, 1, 1, 0",
        "EngineCore_DP1 pid=5,        1, 1, 2, 1",
        "EngineCore pid=5,            1, 1, 1, 0",
        "EngineCore_0 pid=5,          2, 1, 1, none",
        "EngineCore_DP1 pid=5,        1, 2, 2, none",
        // no rank in the name
        "VllmWorkerProcess pid=521,   2, 1, 1, none",
        "'NPURayWorkerWrapper pid=399601, ip=192.0.2.10', 16, 1, 1, none",
        "ApiServer_1 pid=5,           1, 1, 1, none",
        "APIServer pid=5,             1, 1, 1, none",
        "pid=1234,                    1, 1, 1, none",
        // a label that does not fit a wrong --tp: outside the layout it is reported by
        // RankCoverageRule; inside, 0 x 1 + 1 = 1 would be DP replica 1's rank, so none
        "Worker_TP1 pid=7,            1, 1, 1, 1",
        "Worker_DP1_TP3 pid=7,        1, 1, 2, 4",      // 1 x 1 + 3 = 4 >= 2 ranks
        "Worker_DP0_TP1 pid=7,        1, 1, 2, none",
    })
    void rankFromLabel(String label, int tp, int pp, int dp, Integer rank) {
        assertThat(RankLabels.rankOf(label, tp, pp, dp)).isEqualTo(rank);
    }

    @ParameterizedTest
    @CsvSource({"1, 1, 1", "8, 2, 4"})
    void noLabelNoRank(int tp, int pp, int dp) {
        assertThat(RankLabels.rankOf(null, tp, pp, dp)).isNull();
    }

    /**
     * The DP replica told by the log beyond the label (the worker line sat under
     * {@code (EngineCore_DPd pid=..)}): it fills the DP part the label leaves out, never overrides one.
     */
    @ParameterizedTest(name = "{0} in DP {1} under TP {2} PP {3} DP {4} -> {5}")
    @CsvSource(nullValues = "none", value = {
        "Worker_TP1 pid=12,          1, 2, 1, 2, 3",    // 1 x 2 + 1
        "Worker_TP0 pid=12,          0, 2, 1, 2, 0",
        "Worker pid=12,              1, 2, 1, 2, none", // the TP rank is still not told
        "Worker_PP1_TP0 pid=12,      1, 2, 2, 2, 6",    // 1 x 4 + 1 x 2 + 0
        "Worker_DP0_TP1 pid=12,      1, 2, 1, 2, 1",    // the label's own DP part wins
        "VllmWorker rank=1 pid=12,   1, 2, 1, 2, 3",    // v0.8-0.9: rank inside the replica
        "VllmWorker TP1 pid=12,      1, 2, 1, 2, 3",
        "Worker_TP1 pid=12,          none, 2, 1, 2, none",
        "Worker_TP1 pid=12,          2, 2, 1, 2, 5",    // DP 2 of a --dp 2 run: 2 x 2 + 1 = 5, outside, reported
    })
    void rankFromLabelAndEnclosingEngineCore(String label, Integer dpRank, int tp, int pp, int dp, Integer rank) {
        assertThat(RankLabels.rankOf(label, dpRank, tp, pp, dp)).isEqualTo(rank);
    }
}

package io.hbmledger.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.vllmlog.VllmLogParser;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * VLLM_DP_SIZE / VLLM_DP_RANK (vllm/envs.py; ParallelConfig takes them when no --data-parallel-size
 * above 1 is given) and --data-parallel-rank: each process runs one DP rank, TP x PP ranks on its own
 * devices, so VLLM_DP_SIZE is the deployment's size, not the process's.
 */
class DpRankProcessesTest {

    /**
     * A public launch script: two processes of ibm-research/PowerMoE-3b, DP ranks 0 and 1 of 2, each
     * TP 2 on its own CUDA_VISIBLE_DEVICES ("0,1" and "2,3"), one per line.
     */
    private static final String RANK_0 = "VLLM_USE_V1=0 VLLM_DP_RANK=0 VLLM_DP_SIZE=2 CUDA_VISIBLE_DEVICES=\"0,1\""
            + " VLLM_DP_MASTER_IP=127.0.0.1 VLLM_DP_MASTER_PORT=25940 python -m vllm.entrypoints.openai.api_server --model"
            + " 'ibm-research/PowerMoE-3b' --port 8801 --tensor-parallel-size 2 &\n";
    private static final String RANK_1 = "VLLM_USE_V1=0 VLLM_DP_RANK=1 VLLM_DP_SIZE=2 CUDA_VISIBLE_DEVICES=\"2,3\""
            + " VLLM_DP_MASTER_IP=127.0.0.1 VLLM_DP_MASTER_PORT=25940 python -m vllm.entrypoints.openai.api_server --model"
            + " 'ibm-research/PowerMoE-3b' --port 8802 --tensor-parallel-size 2\n";

    private static List<TaggedObservation> tagged(String text) {
        return VllmLogParser.parse(text).observations().stream()
                .map(o -> new TaggedObservation(o, "launch.sh", EvidenceFormat.VLLM_LOG, null, null, null)).toList();
    }

    /** The servers of the text, indexed as the loader indexes a run's observations once. */
    private static io.hbmledger.ledger.vllm.VllmServers servers(String text) {
        return io.hbmledger.ledger.vllm.VllmServers.of(io.hbmledger.ledger.vllm.ServerStartsInLog.lastStartOnly(tagged(text)));
    }

    @Test
    void theEnvironmentIsReadWithItsVariable() {
        assertThat(VllmLogParser.parse(RANK_1).observations()).filteredOn(o -> o.quantity().contractName().startsWith("data_parallel"))
                .extracting(x -> x.quantity().contractName(), Observation::value, x -> x.context().component())
                .containsExactly(tuple("data_parallel_rank", 1.0, "VLLM_DP_RANK"), tuple("data_parallel_size", 2.0, "VLLM_DP_SIZE"));
    }

    @Test
    void oneProcessIsOneReplicaOnItsOwnDevices() {
        Layout l = LogDeployment.of(servers(RANK_1), List.of(), null).orElseThrow();
        // TP 2 on "2,3": the process's 2 ranks, not 2 x VLLM_DP_SIZE 2 = 4
        assertThat(List.of(l.tp(), l.dp(), l.pp())).containsExactly(2, 1, 1);
        assertThat(l.devices()).containsExactly(2, 3);
        assertThat(l.origin()).contains("one process of DP rank 1 of 2", "launch.sh:1");
    }

    @Test
    void theProcessesOfEveryRankAreOneDeployment() {
        Layout l = LogDeployment.of(servers(RANK_0 + "\n" + RANK_1), List.of(), null).orElseThrow();
        // DP 2 x TP 2, global rank = DP rank x 2 + TP rank: rank 0's "0,1" then rank 1's "2,3"
        assertThat(List.of(l.tp(), l.dp(), l.pp())).containsExactly(2, 2, 1);
        assertThat(l.devices()).containsExactly(0, 1, 2, 3);
        assertThat(l.origin()).contains("2 processes, one per DP rank", "launch.sh:1, launch.sh:3");
    }

    @Test
    void processesThatDoNotMakeOneDeploymentGiveNone() {
        // the two processes disagree on VLLM_DP_SIZE (2 and 3)
        String three = RANK_1.replace("VLLM_DP_SIZE=2", "VLLM_DP_SIZE=3");
        assertThat(LogDeployment.of(servers(RANK_0 + three), List.of(), null)).isEmpty();
        // ranks 1 and 2 of 3: rank 0's process is missing, so whose devices come first is not known
        String two = RANK_1.replace("VLLM_DP_RANK=1", "VLLM_DP_RANK=2").replace("\"2,3\"", "\"4,5\"");
        Optional<Layout> l = LogDeployment.of(servers(three + two.replace("VLLM_DP_SIZE=2", "VLLM_DP_SIZE=3")), List.of(), null);
        assertThat(l).isEmpty();
    }

    /**
     * vLLM's own echo of --data-parallel-rank (vllm PR #53743, external load balancing: each process one
     * DP rank): 'data_parallel_size': 4, 'data_parallel_rank': 0, 'data_parallel_size_local': 1.
     */
    @Test
    void theEnginesEchoOfTheRank() {
        String line = "(APIServer pid=133844) INFO 08-29 02:16:04 [api_utils.py:286] non-default args: {'model_tag':"
                + " '/workspace/models/Qwen3-30B-A3B', 'port': 8100, 'model': '/workspace/models/Qwen3-30B-A3B', 'dtype':"
                + " 'bfloat16', 'max_model_len': 2048, 'enforce_eager': True, 'master_port': 29600, 'nnodes': 2,"
                + " 'data_parallel_size': 4, 'data_parallel_rank': 0, 'data_parallel_size_local': 1, 'data_parallel_address':"
                + " '127.0.0.1', 'data_parallel_rpc_port': 29550}\n";
        Layout l = LogDeployment.of(servers(line), List.of(), null).orElseThrow();
        assertThat(List.of(l.tp(), l.dp(), l.pp())).containsExactly(1, 1, 1);
        assertThat(l.origin()).contains("one process of DP rank 0 of 4");
    }
}

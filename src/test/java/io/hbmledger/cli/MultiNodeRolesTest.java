package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which multi-node commands are one server for the whole deployment (first node head, others sample-only workers). */
class MultiNodeRolesTest {

    @Test
    void oneServerForTheDeploymentWhenTheCommandSaysSoOrTheUserDoes() {
        // vLLM's multi-node data parallel, head side (docs "Data Parallel Deployment"): its --headless workers are the user's
        assertThat(MultiNodeCollect.headOnly(false, List.of("vllm", "serve", "m", "--data-parallel-size", "4",
                "--data-parallel-size-local", "2", "--data-parallel-address", "10.0.0.1", "--data-parallel-rpc-port", "13345"))).isTrue();
        assertThat(MultiNodeCollect.headOnly(false, List.of("vllm", "serve", "m", "-tp", "16", "--distributed-executor-backend", "ray")))
                .isTrue();
        assertThat(MultiNodeCollect.headOnly(false, List.of("vllm", "serve", "m", "--distributed-executor-backend=ray"))).isTrue();
        assertThat(MultiNodeCollect.headOnly(true, List.of("vllm", "serve", "m"))).isTrue();
        // a server on every node, each its own data-parallel rank
        assertThat(MultiNodeCollect.headOnly(false, List.of("vllm", "serve", "m", "--data-parallel-address", "10.0.0.1",
                "--data-parallel-start-rank", "{node_rank}"))).isFalse();
        assertThat(MultiNodeCollect.headOnly(false, List.of("vllm", "serve", "m", "--data-parallel-rank", "{node_rank}"))).isFalse();
        assertThat(MultiNodeCollect.headOnly(false, List.of("vllm", "serve", "m", "--distributed-executor-backend", "mp"))).isFalse();
    }
}

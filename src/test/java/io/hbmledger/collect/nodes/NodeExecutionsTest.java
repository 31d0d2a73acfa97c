package io.hbmledger.collect.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.Executions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** exec list / status / stop over two SIMULATED nodes, one simulated vLLM server on each. */
class NodeExecutionsTest {

    @TempDir
    Path tmp;
    SimCluster cluster;
    final ByteArrayOutputStream buf = new ByteArrayOutputStream();

    @AfterEach
    void tearDown() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private String lines() {
        String s = buf.toString(StandardCharsets.UTF_8);
        buf.reset();
        return s;
    }

    @Test
    void eachNodeAnswersForItsOwnExecutionsOnLinesNamedAfterIt() throws Exception {
        cluster = new SimCluster(tmp, 2, 4);
        int port = MultiNodeCollectTest.freePorts();
        for (int i = 0; i < 2; i++) {
            Node n = cluster.nodes.get(i);
            n.executions().start(MultiNodeCollectTest.spec(port, i, tmp), "e" + i, "test");
        }
        NodeExecutions ex = new NodeExecutions(cluster.nodes, new PrintStream(buf, true, StandardCharsets.UTF_8));

        assertThat(ex.list()).isZero();
        String list = lines();
        assertThat(list).startsWith("NODE ").containsPattern("(?m)^\\[sim-node-0\\] +e0 +starting +yes +" + port + " ")
                .containsPattern("(?m)^\\[sim-node-1\\] +e1 +starting +yes +" + (port + 1) + " ");
        assertThat(list.lines()).hasSize(3);

        assertThat(ex.status(List.of("e1"))).isZero();
        assertThat(lines()).startsWith("[sim-node-1]").contains("e1: starting (process group").doesNotContain("sim-node-0");

        Executions.StopTimeouts quick = new Executions.StopTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertThat(ex.stop(List.of("e0"), quick)).isZero();
        assertThat(lines()).startsWith("[sim-node-0]").contains("e0: stopped after SIGINT").doesNotContain("e1");
        // only node 0's server stopped
        ExecutionRecord e1 = cluster.store.get("e1");
        assertThat(cluster.nodes.get(1).executions().alive(e1)).isTrue();
        assertThat(cluster.nodes.get(0).executions().alive(cluster.store.get("e0"))).isFalse();

        // a node that does not answer is said on its own line; the other still answers; exit 1
        cluster.hosts.get(1).dropOut();
        assertThat(ex.list()).isEqualTo(1);
        String after = lines();
        assertThat(after).containsPattern("(?m)^\\[sim-node-0\\] +e0 +stopped +no ")
                .containsPattern("(?m)^\\[sim-node-1\\] +does not answer: node sim-node-1 does not answer");
        cluster.hosts.get(1).comeBack();

        assertThatThrownBy(() -> ex.stop(List.of("nope"), quick)).isInstanceOf(CollectException.class)
                .hasMessageContaining("no execution 'nope'");
        NodeExecutions onlyNode0 = new NodeExecutions(List.of(cluster.nodes.get(0)), new PrintStream(buf, true, StandardCharsets.UTF_8));
        assertThatThrownBy(() -> onlyNode0.stop(List.of("e1"), quick)).isInstanceOf(CollectException.class)
                .hasMessageContaining("runs on sim-node-1, which is none of the nodes given");
        assertThat(ex.stop(List.of("e1"), quick)).isZero();
        assertThat(lines()).startsWith("[sim-node-1]").contains("e1: stopped");
    }
}

package io.hbmledger.collect.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.collect.Collector;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deployment whose one server only the head starts (vLLM on Ray, or --headless data-parallel
 * workers), on two SIMULATED nodes: the worker never starts or stops a server and still gives a
 * sample at every moment, at the same instants as the head.
 */
class NodeRolesTest {

    @TempDir
    Path tmp;
    SimCluster cluster;
    final ByteArrayOutputStream log = new ByteArrayOutputStream();

    @AfterEach
    void tearDown() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theWorkerStartsNoServerAndSamplesAtEveryMomentWithTheHead() throws Exception {
        cluster = new SimCluster(tmp, 2, 4);
        List<Node> nodes = List.of(cluster.nodes.get(0), cluster.nodes.get(1).as(NodeRole.WORKER));
        int port = MultiNodeCollectTest.freePorts();
        Path run = tmp.resolve("run");

        Collector.Outcome o = new NodeSet(nodes, MultiNodeCollectTest.settings(), new PrintStream(log, true, StandardCharsets.UTF_8))
                .standalone(run, rank -> MultiNodeCollectTest.spec(port, rank, tmp));

        String out = log.toString(StandardCharsets.UTF_8);
        RunManifest top = RunDirectory.open(run).manifest();
        assertThat(o).as(out + top.incompleteReasons()).isEqualTo(Collector.Outcome.COMPLETE);
        // one server in the whole run, on the head
        assertThat(cluster.store.list()).extracting(ExecutionRecord::host).containsExactly("sim-node-0");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> entries = (List<Map<String, Object>>) top.extra().get("nodes");
        assertThat(entries).extracting(n -> n.get("role")).containsExactly("head", "worker");
        assertThat(top.extra().get("phases_done")).isEqualTo(top.extra().get("phases_planned"));
        assertThat(out).contains("[sim-node-1 worker] worker: phase start is the head's",
                "[sim-node-1 worker] worker: phase stop is the head's");
        assertThat(out).doesNotContain("[sim-node-1 worker] started execution");

        Path worker = run.resolve("nodes/sim-node-1");
        RunManifest w = RunDirectory.open(worker).manifest();
        assertThat(w.extra().get("role")).isEqualTo("worker");
        assertThat(RunDirectory.open(run.resolve("nodes/sim-node-0")).manifest().extra().get("role")).isEqualTo("head");
        assertThat(w.executionId()).isNull();
        assertThat(w.status()).isEqualTo("complete");
        // a sample at every moment: 2 baseline, 1 ready, the load (at least one), 1 after
        assertThat(w.evidence()).filteredOn(e -> "baseline".equals(e.moment())).hasSize(2);
        assertThat(w.evidence()).filteredOn(e -> "ready".equals(e.moment())).hasSize(1);
        assertThat(w.evidence()).filteredOn(e -> "load".equals(e.moment())).isNotEmpty();
        assertThat(w.evidence()).filteredOn(e -> "after".equals(e.moment())).hasSize(1);
        assertThat(Files.exists(worker.resolve("execution"))).isFalse();
        // the worker's own simulated devices: nothing of the head's server on them
        assertThat(NpuSmiInfoParser.processes(Files.readString(worker.resolve("npu-smi/ready-001.txt")))).isEmpty();
        // taken together with the head's at the fixed points
        for (String f : List.of("baseline-002.txt", "ready-001.txt", "after-001.txt")) {
            long a = MultiNodeCollectTest.Instant0.of(run, "sim-node-0", f).millis();
            long b = MultiNodeCollectTest.Instant0.of(run, "sim-node-1", f).millis();
            assertThat(Math.abs(a - b)).as(f + " on head and worker").isLessThan(3000);
        }
        // the worker sampled all through the head's load: its load samples lie between the head's load start and after
        long headAfter = MultiNodeCollectTest.Instant0.of(run, "sim-node-0", "after-001.txt").millis();
        w.evidence().stream().filter(e -> "load".equals(e.moment())).forEach(e -> assertThat(
                java.time.OffsetDateTime.parse(e.takenAt()).toInstant().toEpochMilli()).isLessThanOrEqualTo(headAfter));

        // resume leaves the worker's run as it is and never looks for an execution there
        Collector.Outcome resumed = new NodeSet(cluster.nodes, MultiNodeCollectTest.settings(),
                new PrintStream(log, true, StandardCharsets.UTF_8)).resume(run, null);
        assertThat(resumed).isEqualTo(Collector.Outcome.COMPLETE);
        assertThat(RunDirectory.open(worker).manifest()).isEqualTo(w);
    }

    /** Attach: the head measures the running server (left running), the worker samples ready, load and after with it. */
    @Test
    void attachedTheWorkerSamplesWithTheHeadAndNeedsNoExecutionId() throws Exception {
        cluster = new SimCluster(tmp, 2, 4);
        int port = MultiNodeCollectTest.freePorts();
        Node head = cluster.nodes.get(0);
        ExecutionRecord running = head.executions().awaitReady(head.executions().start(MultiNodeCollectTest.spec(port, 0, tmp), "e0", "test"),
                new io.hbmledger.collect.ServerClient(head.host().reach(port), null), java.time.Duration.ofSeconds(90));
        List<Node> nodes = List.of(head, cluster.nodes.get(1).as(NodeRole.WORKER));
        Path run = tmp.resolve("run");

        Collector.Outcome o = new NodeSet(nodes, MultiNodeCollectTest.settings(), new PrintStream(log, true, StandardCharsets.UTF_8))
                .attach(run, List.of("e0"));

        String out = log.toString(StandardCharsets.UTF_8);
        RunManifest top = RunDirectory.open(run).manifest();
        // attach under msprof is incomplete until resume exports: the head says so, the worker is complete
        assertThat(o).as(out + top.incompleteReasons()).isEqualTo(Collector.Outcome.INCOMPLETE);
        assertThat(head.executions().alive(running)).as("attach leaves the server running").isTrue();
        assertThat(cluster.store.list()).extracting(ExecutionRecord::host).containsExactly("sim-node-0");
        RunManifest w = RunDirectory.open(run.resolve("nodes/sim-node-1")).manifest();
        assertThat(w.status()).as(w.incompleteReasons().toString()).isEqualTo("complete");
        assertThat(w.mode()).isEqualTo("attach");
        assertThat(w.evidence()).extracting(e -> e.moment()).doesNotContain("baseline").contains("ready", "load", "after");
        long a = MultiNodeCollectTest.Instant0.of(run, "sim-node-0", "after-001.txt").millis();
        long b = MultiNodeCollectTest.Instant0.of(run, "sim-node-1", "after-001.txt").millis();
        assertThat(Math.abs(a - b)).as("after sample on head and worker").isLessThan(3000);
        assertThat(out).contains("[sim-node-1 worker] worker: phase copy is the head's").doesNotContain("phase start is the head's");
    }
}

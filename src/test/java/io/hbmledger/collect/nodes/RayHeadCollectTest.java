package io.hbmledger.collect.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.Collector;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.nodes.ray.RayDiscovery;
import io.hbmledger.collect.nodes.ray.RayNode;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery from a Ray head: the SIMULATED {@code ray} of sim/bin on the simulated head host lists
 * the simulated cluster (one node DEAD), and the run is collected on what it found: the head starts
 * the server, the worker only samples.
 */
class RayHeadCollectTest {

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

    /** The simulated Ray cluster on the head: addresses standing for the simulated nodes, and Ray's version. */
    private void rayCluster(String version, String... lines) throws Exception {
        Path ray = tmp.resolve("sim-node-0/sim/ray");
        Files.createDirectories(ray);
        Files.writeString(ray.resolve("nodes"), String.join("\n", lines) + "\n");
        Files.writeString(ray.resolve("version"), version + "\n");
    }

    private Map<String, SimNodeHost> byAddress() {
        return Map.of("10.0.0.1", cluster.hosts.get(0), "10.0.0.2", cluster.hosts.get(1));
    }

    @Test
    void aRayHeadsNodesAreCollectedWithTheHeadServingAndTheWorkerSampling() throws Exception {
        cluster = new SimCluster(tmp, 2, 4);
        rayCluster("2.9", "10.0.0.1 head ALIVE 4", "10.0.0.2 worker ALIVE 4", "10.0.0.3 worker DEAD 4");

        RayDiscovery.Cluster found = RayDiscovery.discover(cluster.hosts.get(0), Duration.ofSeconds(30));

        assertThat(found.command()).startsWith("ray list nodes --format json");
        assertThat(found.head().ip()).isEqualTo("10.0.0.1");
        assertThat(found.workers()).extracting(RayNode::ip).containsExactly("10.0.0.2");
        assertThat(found.dead()).extracting(RayNode::ip).containsExactly("10.0.0.3");
        assertThat(found.head().accelerators()).isEqualTo(Map.of("NPU", 4.0));

        List<Node> nodes = RayDiscovery.nodes(found, cluster.hosts.get(0), byAddress()::get,
                (h, role) -> cluster.nodes.stream().filter(n -> n.host() == h).findFirst().orElseThrow().as(role));
        assertThat(nodes).extracting(Node::name, Node::role)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("sim-node-0", NodeRole.HEAD),
                        org.assertj.core.groups.Tuple.tuple("sim-node-1", NodeRole.WORKER));
        int port = MultiNodeCollectTest.freePorts();
        Path run = tmp.resolve("run");

        Collector.Outcome o = new NodeSet(nodes, MultiNodeCollectTest.settings(), new PrintStream(log, true, StandardCharsets.UTF_8))
                .standalone(run, rank -> MultiNodeCollectTest.spec(port, rank, tmp));

        RunManifest top = RunDirectory.open(run).manifest();
        assertThat(o).as(log.toString(StandardCharsets.UTF_8) + top.incompleteReasons()).isEqualTo(Collector.Outcome.COMPLETE);
        assertThat(cluster.store.list()).extracting(ExecutionRecord::host).containsExactly("sim-node-0");
        RunManifest worker = RunDirectory.open(run.resolve("nodes/sim-node-1")).manifest();
        assertThat(worker.extra().get("role")).isEqualTo("worker");
        assertThat(worker.evidence()).extracting(e -> e.moment()).contains("baseline", "ready", "load", "after");
    }

    /** A Ray 1.x head (no 'ray list'): the nodes come from 'ray status -v', the head from its node type. */
    @Test
    void anOlderRayWithoutListIsReadFromRayStatus() throws Exception {
        cluster = new SimCluster(tmp, 2, 1);
        rayCluster("1.13", "10.0.0.1 head ALIVE 8", "10.0.0.2 worker ALIVE 8", "10.0.0.3 worker DEAD 8");

        RayDiscovery.Cluster found = RayDiscovery.discover(cluster.hosts.get(0), Duration.ofSeconds(30));

        assertThat(found.command()).isEqualTo("ray status -v");
        assertThat(found.head().ip()).isEqualTo("10.0.0.1");
        // ray status lists live nodes only
        assertThat(found.workers()).extracting(RayNode::ip).containsExactly("10.0.0.2");
        assertThat(found.dead()).isEmpty();
    }

    @Test
    void noRunningClusterIsSaidWithWhatToCheck() throws Exception {
        cluster = new SimCluster(tmp, 1, 1);

        assertThatThrownBy(() -> RayDiscovery.discover(cluster.hosts.get(0), Duration.ofSeconds(30)))
                .isInstanceOf(CollectException.class)
                .hasMessageContaining("Could not find any running Ray instance")
                .hasMessageContaining("is the Ray cluster up");
    }
}

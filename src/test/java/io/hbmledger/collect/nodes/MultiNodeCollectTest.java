package io.hbmledger.collect.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.collect.CollectSettings;
import io.hbmledger.collect.Collector;
import io.hbmledger.collect.ExecutionSpec;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.Workload;
import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.evidence.npusmi.NpuSmiProcess;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
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
 * One run across two SIMULATED nodes (each its own sim/bin simulator state): TP 4 on each node,
 * every phase on both in parallel, one run directory with nodes/NAME/ per node.
 */
class MultiNodeCollectTest {

    static final Path MODEL = Path.of("examples/simulated-collect/model").toAbsolutePath();

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

    static CollectSettings settings() {
        return new CollectSettings(2, 1, 1, Duration.ofMillis(200), Duration.ofMillis(300), Duration.ofSeconds(30),
                Duration.ofSeconds(120), Duration.ofSeconds(60), Duration.ofSeconds(60), 50,
                new Executions.StopTimeouts(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(20)),
                new Workload.Spec("completions", 6, 2, 64, 24, Duration.ofSeconds(30), Duration.ofSeconds(90)), null);
    }

    /** TP 4 on each node, its own port; the data-parallel rank of each node's server is its node rank. */
    static ExecutionSpec spec(int basePort, int rank, Path workDir) {
        return ExecutionSpec.fromCommand(List.of("vllm", "serve", MODEL.toString(), "--tensor-parallel-size", "4",
                "--data-parallel-rank", Integer.toString(rank), "--port", Integer.toString(basePort + rank)),
                null, List.of(0, 1, 2, 3), Map.of(), 50, workDir.toString());
    }

    static int freePorts() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            int p = s.getLocalPort();
            return p > 60000 ? p - 1000 : p;
        }
    }

    NodeSet nodeSet() {
        return new NodeSet(cluster.nodes, settings(), new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    String output() {
        return log.toString(StandardCharsets.UTF_8);
    }

    @Test
    void twoNodesTp4CollectedEndToEndIntoOneRun() throws Exception {
        cluster = new SimCluster(tmp, 2, 8);
        int port = freePorts();
        Path run = tmp.resolve("run");

        Collector.Outcome o = nodeSet().standalone(run, rank -> spec(port, rank, tmp));

        RunManifest top = RunDirectory.open(run).manifest();
        assertThat(o).as(output() + top.incompleteReasons()).isEqualTo(Collector.Outcome.COMPLETE);
        assertThat(top.mode()).isEqualTo("multinode");
        assertThat(top.status()).isEqualTo("complete");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> nodes = (List<Map<String, Object>>) top.extra().get("nodes");
        assertThat(nodes).extracting(n -> n.get("name")).containsExactly("sim-node-0", "sim-node-1");
        assertThat(nodes).allSatisfy(n -> {
            assertThat(n.get("status")).isEqualTo("complete");
            assertThat(n.get("clock").toString()).contains("start={offset_ms=", "end={offset_ms=");
        });
        // one host: the clocks are one clock, so the offsets are within the round trips
        @SuppressWarnings("unchecked")
        Map<String, Object> clock = (Map<String, Object>) top.extra().get("clock");
        assertThat(((Number) clock.get("spread_start_ms")).longValue())
                .isLessThanOrEqualTo(((Number) clock.get("max_round_trip_start_ms")).longValue());
        assertThat(clock).containsKey("skew_ms");
        assertThat(top.extra().get("phases_done")).isEqualTo(top.extra().get("phases_planned"));
        for (int i = 0; i < 2; i++) {
            Path node = run.resolve("nodes/sim-node-" + i);
            RunManifest m = RunDirectory.open(node).manifest();
            assertThat(m.status()).isEqualTo("complete");
            assertThat(m.deployment().tp()).isEqualTo(4);
            // each node's own simulated devices: idle at baseline, its server on NPUs 0-3 once ready
            assertThat(NpuSmiInfoParser.processes(Files.readString(node.resolve("npu-smi/baseline-001.txt")))).isEmpty();
            assertThat(NpuSmiInfoParser.processes(Files.readString(node.resolve("npu-smi/ready-001.txt"))))
                    .extracting(NpuSmiProcess::device).containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(Files.readString(node.resolve("execution/server.log"))).contains("Worker_TP3");
            assertThat(m.evidence()).anyMatch(e -> e.file().contains("/npu_module_mem_"));
        }
        // samples at the same instant on both nodes: the fixed samples were taken together
        Instant0 a = Instant0.of(run, "sim-node-0", "baseline-002.txt");
        Instant0 b = Instant0.of(run, "sim-node-1", "baseline-002.txt");
        assertThat(Math.abs(a.millis - b.millis)).as("baseline sample 2 on both nodes").isLessThan(3000);

        // analyze: one ledger per device across the cluster, devices named per node, global ranks
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cl = io.hbmledger.cli.Main.newCommandLine();
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        assertThat(cl.execute("analyze", run.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).contains("Multi-node run", "2 nodes, 8 devices", "== node sim-node-0", "== node sim-node-1");
        assertThat(out.toString()).containsPattern("sim-node-1 +sim-node-1/npu:3/chip:0 +7 ");
        com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(run.resolve("report.json").toFile());
        List<String> names = new java.util.ArrayList<>();
        List<Integer> ranks = new java.util.ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode d : report.path("devices")) {
            names.add(d.path("device").asText());
            d.path("ranks").forEach(r -> ranks.add(r.asInt()));
            assertThat(d.path("used_bytes").isNull()).as("used from the node's own npu-smi sample").isFalse();
        }
        assertThat(names).containsExactly("sim-node-0/npu:0/chip:0", "sim-node-0/npu:1/chip:0", "sim-node-0/npu:2/chip:0",
                "sim-node-0/npu:3/chip:0", "sim-node-1/npu:0/chip:0", "sim-node-1/npu:1/chip:0", "sim-node-1/npu:2/chip:0",
                "sim-node-1/npu:3/chip:0");
        // global rank = data-parallel rank x TP 4 + local rank
        assertThat(ranks).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(report.path("status").asText()).isEqualTo("complete");
    }

    /**
     * Node 1 drops out during the load (its server killed, the node unreachable): node 0 goes on
     * and finishes whole, the run is incomplete naming node 1; once node 1 is back, resume saves
     * what its stopped execution left (msprof export, log) and names the phases it cannot retake.
     */
    @Test
    void aNodeKilledMidLoadLeavesTheOthersWholeAndResumeSavesWhatItLeft() throws Exception {
        cluster = new SimCluster(tmp, 2, 4);
        int port = freePorts();
        Path run = tmp.resolve("run");
        Thread killer = new Thread(() -> dropWhenLoading(run.resolve("nodes/sim-node-1")), "test-node-killer");
        killer.start();

        Collector.Outcome o = nodeSet().standalone(run, rank -> spec(port, rank, tmp));
        killer.join();

        RunManifest top = RunDirectory.open(run).manifest();
        assertThat(o).as(output()).isEqualTo(Collector.Outcome.INCOMPLETE);
        assertThat(top.status()).isEqualTo("incomplete");
        assertThat(top.incompleteReasons()).anySatisfy(r -> assertThat(r).startsWith("node sim-node-1 is failed"));
        assertThat(top.incompleteReasons()).noneMatch(r -> r.contains("sim-node-0"));
        RunManifest kept = RunDirectory.open(run.resolve("nodes/sim-node-0")).manifest();
        assertThat(kept.status()).isEqualTo("complete");
        assertThat(kept.evidence()).anyMatch(e -> "after".equals(e.moment())).anyMatch(e -> e.file().contains("npu_mem_"));
        RunManifest dropped = RunDirectory.open(run.resolve("nodes/sim-node-1")).manifest();
        assertThat(dropped.status()).isEqualTo("failed");
        // what node 1 took before it dropped out stays named and on disk
        assertThat(dropped.evidence()).anyMatch(e -> "baseline".equals(e.moment())).anyMatch(e -> "ready".equals(e.moment()));
        for (var e : dropped.evidence()) {
            assertThat(run.resolve("nodes/sim-node-1").resolve(e.file())).exists();
        }

        cluster.hosts.get(1).comeBack();
        Collector.Outcome resumed = nodeSet().resume(run, null);

        RunManifest after = RunDirectory.open(run).manifest();
        assertThat(resumed).as(output()).isEqualTo(Collector.Outcome.INCOMPLETE);
        RunManifest node1 = RunDirectory.open(run.resolve("nodes/sim-node-1")).manifest();
        assertThat(node1.mode()).isEqualTo("resume");
        assertThat(node1.evidence()).anyMatch(e -> e.file().contains("npu_module_mem_"));
        assertThat(node1.incompleteReasons()).anyMatch(r -> r.startsWith("phase after was not finished"));
        assertThat(after.incompleteReasons()).anySatisfy(r -> assertThat(r).startsWith("node sim-node-1 is incomplete"));
        assertThat(RunDirectory.open(run.resolve("nodes/sim-node-0")).manifest()).isEqualTo(kept);
    }

    /** Waits until the node's collection is in its load phase, then kills its server and cuts it off. */
    private void dropWhenLoading(Path nodeDir) {
        try {
            long until = System.nanoTime() + Duration.ofMinutes(4).toNanos();
            while (System.nanoTime() < until) {
                if (Files.exists(nodeDir.resolve("run.json")) && Files.readString(nodeDir.resolve("run.json")).contains("\"phase\" : \"load\"")) {
                    Thread.sleep(400);
                    for (var r : cluster.store.list()) {
                        if (r.host().equals("sim-node-1")) {
                            new io.hbmledger.collect.LocalHost().signalGroup(r.pgid(), "KILL");
                        }
                    }
                    cluster.hosts.get(1).dropOut();
                    return;
                }
                Thread.sleep(100);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** When a node's sample was taken, as its run.json says. */
    record Instant0(long millis) {
        static Instant0 of(Path run, String node, String file) throws Exception {
            RunManifest m = RunDirectory.open(run.resolve("nodes").resolve(node)).manifest();
            String at = m.evidence().stream().filter(e -> e.file().endsWith(file)).findFirst().orElseThrow().takenAt();
            return new Instant0(java.time.OffsetDateTime.parse(at).toInstant().toEpochMilli());
        }
    }
}

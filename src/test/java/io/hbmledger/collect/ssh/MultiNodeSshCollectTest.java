package io.hbmledger.collect.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.cli.Main;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.LocalHost;
import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.evidence.npusmi.NpuSmiProcess;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 16 over real SSH: two SIMULATED Ascend nodes, each a real OpenSSH sshd on its own
 * 127.0.0.1 port whose sessions get the node's own simulator state (sshd SetEnv HBM_SIM_HOME: its
 * own 4 simulated NPUs, npu-smi / msprof / vllm SIMULATORS of sim/bin). A TP 4 x 2-node deployment
 * is collected through the CLI as a user types it ({@code collect --host A --host B -- vllm serve
 * ... --data-parallel-rank {node_rank}}) and analysed.
 */
class MultiNodeSshCollectTest {

    static final Path SIM_BIN = Path.of("sim/bin").toAbsolutePath();
    static final Path MODEL = Path.of("examples/simulated-collect/model").toAbsolutePath();

    @TempDir
    Path tmp;
    final List<OpenSshServer> nodes = new ArrayList<>();
    Path userKey;
    Path knownHosts;

    @BeforeEach
    void setUp() throws Exception {
        OpenSshServer.requireSshd();
        Files.createDirectories(tmp.resolve("keys"));
        userKey = tmp.resolve("keys/user_key");
        OpenSshServer.keygen(userKey);
        knownHosts = tmp.resolve("keys/known_hosts");
        for (int i = 0; i < 2; i++) {
            Path sim = tmp.resolve("node" + i + "/sim");
            initSimulatedNode(sim);
            nodes.add(OpenSshServer.start(tmp.resolve("node" + i + "/sshd"), userKey, knownHosts, Map.of("HBM_SIM_HOME", sim.toString())));
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        LocalHost local = new LocalHost();   // the nodes run on this machine: their groups can be seen here
        for (ExecutionRecord r : new ExecutionStore(tmp.resolve("state")).list()) {
            if (!local.groupMembers(r.pgid()).isEmpty()) {
                local.signalGroup(r.pgid(), "KILL");
            }
        }
        nodes.forEach(OpenSshServer::close);
    }

    /** 4 idle simulated 910B1 NPUs in the node's own state directory. */
    static void initSimulatedNode(Path simHome) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(SIM_BIN.resolve("hbm-sim").toString(), "init", "--npus", "4").redirectErrorStream(true);
        pb.environment().put("HBM_SIM_HOME", simHome.toString());
        pb.environment().put("HBM_SIM_CLASSPATH", System.getProperty("java.class.path"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as("hbm-sim init: " + out).isTrue();
    }

    /** The collect command line a user types for two nodes (the servers share this machine's loopback: one port each). */
    List<String> collectArgs(Path run, int portPrefix) {
        List<String> a = new ArrayList<>(List.of("collect"));
        nodes.forEach(n -> a.addAll(List.of("--host", n.target())));
        a.addAll(List.of("--identity", userKey.toString(), "--known-hosts", knownHosts.toString(),
                "--remote-state-dir", tmp.resolve("remote-state").toString(),
                "--remote-env", "PATH=" + SIM_BIN + ":/usr/local/bin:/usr/bin:/bin",
                "--remote-env", "HBM_SIM_CLASSPATH=" + System.getProperty("java.class.path"),
                "--remote-env", "HBM_SIM_JAVA=" + Path.of(System.getProperty("java.home"), "bin", "java"),
                "--remote-env", "HBM_SIM_STEP_MS=20",
                "--state-dir", tmp.resolve("state").toString(), "--out", run.toString(), "--devices", "0,1,2,3",
                "--baseline-samples", "2", "--ready-samples", "1", "--after-samples", "1", "--sample-interval", "0.2",
                "--load-interval", "0.3", "--requests", "6", "--concurrency", "2", "--input-tokens", "64", "--output-tokens", "24",
                // every node's simulators are JVMs sharing this machine's cores with the build: patience
                "--stop-timeout", "15", "--npu-smi-timeout", "120",
                "--", "vllm", "serve", MODEL.toString(), "--tensor-parallel-size", "4",
                "--data-parallel-rank", "{node_rank}", "--port", portPrefix + "{node_rank}"));
        return a;
    }

    /** A port number's first digits: the servers listen on PREFIX0 and PREFIX1. */
    static int portPrefix() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return Math.min(s.getLocalPort(), 65529) / 10;
        }
    }

    static int execute(StringWriter out, List<String> args) {
        CommandLine cl = Main.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        return cl.execute(args.toArray(String[]::new));
    }

    String node(int i) {
        return "127.0.0.1-" + nodes.get(i).port;
    }

    @Test
    void twoNodesOverSshCollectedThroughTheCliAndAnalysedWithDevicesNamedPerNode() throws Exception {
        Path run = tmp.resolve("run");
        StringWriter out = new StringWriter();

        int rc = execute(out, collectArgs(run, portPrefix()));

        RunManifest top = RunDirectory.open(run).manifest();
        assertThat(rc).as(out + " " + top.incompleteReasons()).isZero();
        assertThat(top.mode()).isEqualTo("multinode");
        assertThat(top.status()).isEqualTo("complete");
        JsonNode json = new ObjectMapper().readTree(run.resolve("run.json").toFile());
        assertThat(json.path("nodes").findValuesAsText("host")).containsExactly(nodes.get(0).target(), nodes.get(1).target());
        // how the nodes were reached is kept for resume; the key itself never is
        assertThat(json.path("connection").path("identity").asText()).isEqualTo(userKey.toString());
        assertThat(json.path("connection").path("remote_env").path("HBM_SIM_STEP_MS").asText()).isEqualTo("20");
        for (int i = 0; i < 2; i++) {
            Path dir = run.resolve("nodes").resolve(node(i));
            RunManifest m = RunDirectory.open(dir).manifest();
            assertThat(m.status()).isEqualTo("complete");
            assertThat(m.deployment().extra().get("host")).isEqualTo(nodes.get(i).target());
            // each node's own simulated NPUs over its own SSH: idle at baseline, its 4 ranks once ready
            assertThat(NpuSmiInfoParser.processes(Files.readString(dir.resolve("npu-smi/baseline-001.txt")))).isEmpty();
            assertThat(NpuSmiInfoParser.processes(Files.readString(dir.resolve("npu-smi/ready-001.txt"))))
                    .extracting(NpuSmiProcess::device).containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(Files.readString(dir.resolve("execution/server.log"))).contains("Worker_TP3");
            assertThat(m.evidence()).anyMatch(e -> e.file().contains("/npu_module_mem_"));
        }

        StringWriter report = new StringWriter();
        assertThat(execute(report, List.of("analyze", run.toString()))).as(report.toString()).isZero();
        assertThat(report.toString()).contains("2 nodes, 8 devices", "== node " + node(0), "== node " + node(1));
        JsonNode r = new ObjectMapper().readTree(run.resolve("report.json").toFile());
        List<String> devices = new ArrayList<>();
        List<Integer> ranks = new ArrayList<>();
        for (JsonNode d : r.path("devices")) {
            devices.add(d.path("device").asText());
            d.path("ranks").forEach(x -> ranks.add(x.asInt()));
            assertThat(d.path("used_bytes").isNull()).as("used from the node's own npu-smi sample").isFalse();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            for (int npu = 0; npu < 4; npu++) {
                expected.add(node(i) + "/npu:" + npu + "/chip:0");
            }
        }
        assertThat(devices).containsExactlyElementsOf(expected);
        // global rank = the node's data-parallel rank ({node_rank}) x TP 4 + local rank
        assertThat(ranks).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    /**
     * Node 1 loses power during the load (its sshd, its sessions and its simulated server killed):
     * node 0 finishes whole, the run is incomplete naming node 1. Once node 1 is back, {@code collect
     * --resume RUN_DIR} alone (hosts and connection read from run.json) saves what node 1's execution
     * left and leaves node 0's evidence as it was.
     */
    @Test
    void aNodeLostMidLoadOverSshKeepsTheOtherAndResumesFromRunJsonAlone() throws Exception {
        Path run = tmp.resolve("run");
        StringWriter out = new StringWriter();
        int[] rc = new int[1];
        Thread collect = new Thread(() -> rc[0] = execute(out, collectArgs(run, portPrefix0())), "test-collect");
        collect.start();
        waitForLoad(run.resolve("nodes").resolve(node(1)));
        Thread.sleep(400);
        for (ExecutionRecord r : new ExecutionStore(tmp.resolve("state")).list()) {
            if (r.host().equals(nodes.get(1).target())) {
                new LocalHost().signalGroup(r.pgid(), "KILL");
            }
        }
        nodes.get(1).cutOff();
        collect.join(TimeUnit.MINUTES.toMillis(5));
        assertThat(collect.isAlive()).isFalse();

        RunManifest top = RunDirectory.open(run).manifest();
        assertThat(rc[0]).as(out.toString()).isEqualTo(3);
        assertThat(top.status()).isEqualTo("incomplete");
        assertThat(top.incompleteReasons()).anySatisfy(r -> assertThat(r).startsWith("node " + node(1) + " is failed"));
        assertThat(top.incompleteReasons()).noneMatch(r -> r.contains(node(0)));
        RunManifest kept = RunDirectory.open(run.resolve("nodes").resolve(node(0))).manifest();
        assertThat(kept.status()).isEqualTo("complete");
        assertThat(kept.evidence()).anyMatch(e -> "after".equals(e.moment())).anyMatch(e -> e.file().contains("npu_mem_"));
        RunManifest dropped = RunDirectory.open(run.resolve("nodes").resolve(node(1))).manifest();
        assertThat(dropped.status()).isEqualTo("failed");
        assertThat(dropped.evidence()).anyMatch(e -> "baseline".equals(e.moment())).anyMatch(e -> "ready".equals(e.moment()));
        for (var e : dropped.evidence()) {
            assertThat(run.resolve("nodes").resolve(node(1)).resolve(e.file())).exists();
        }

        nodes.get(1).comeBack();
        StringWriter again = new StringWriter();
        int resumed = execute(again, List.of("collect", "--resume", run.toString(), "--state-dir", tmp.resolve("state").toString()));

        assertThat(resumed).as(again.toString()).isEqualTo(3);
        RunManifest node1 = RunDirectory.open(run.resolve("nodes").resolve(node(1))).manifest();
        assertThat(node1.mode()).isEqualTo("resume");
        assertThat(node1.evidence()).anyMatch(e -> e.file().contains("npu_module_mem_"));
        assertThat(node1.incompleteReasons()).anyMatch(r -> r.startsWith("phase after was not finished"));
        assertThat(RunDirectory.open(run).manifest().incompleteReasons())
                .anySatisfy(r -> assertThat(r).startsWith("node " + node(1) + " is incomplete"))
                .noneMatch(r -> r.contains(" is failed"));
        assertThat(RunDirectory.open(run.resolve("nodes").resolve(node(0))).manifest()).isEqualTo(kept);

        // --execution names each node's execution, in node order: a list of the wrong length is refused
        StringWriter wrong = new StringWriter();
        assertThat(execute(wrong, List.of("collect", "--resume", run.toString(), "--state-dir", tmp.resolve("state").toString(),
                "--execution", kept.executionId()))).isEqualTo(2);
    }

    private static int portPrefix0() {
        try {
            return portPrefix();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void waitForLoad(Path nodeDir) throws Exception {
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
        while (System.nanoTime() < until) {
            Path json = nodeDir.resolve("run.json");
            if (Files.exists(json) && Files.readString(json).contains("\"phase\" : \"load\"")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("node " + nodeDir.getFileName() + " never reached the load phase");
    }
}

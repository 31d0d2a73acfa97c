package io.hbmledger.collect.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.collect.CollectSettings;
import io.hbmledger.collect.Collector;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.ExecutionSpec;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.LocalHost;
import io.hbmledger.collect.Workload;
import io.hbmledger.collect.nodes.Node;
import io.hbmledger.collect.nodes.NodeSet;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Collection through the SIMULATED kubectl of sim/bin (pods are simulated Ascend hosts on this
 * machine, each with its own simulator state): two pods found by a label selector under the
 * kubeconfig's current context, every phase through kubectl exec, copies through a tar stream.
 */
class KubeCollectTest {

    static final Path SIM_BIN = Path.of("sim/bin").toAbsolutePath();

    @TempDir
    Path tmp;
    final ByteArrayOutputStream log = new ByteArrayOutputStream();

    @AfterEach
    void tearDown() throws Exception {
        LocalHost h = new LocalHost();   // the simulated pods' processes are this machine's
        for (ExecutionRecord r : new ExecutionStore(tmp.resolve("state")).list()) {
            if (!h.groupMembers(r.pgid()).isEmpty()) {
                h.signalGroup(r.pgid(), "KILL");
            }
        }
    }

    /** A simulated pod: its environment (own simulator state) and labels, under context sim-a. */
    private Path pod(String name, String app) throws Exception {
        Path dir = tmp.resolve("kube/sim-a/serving").resolve(name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("env"), String.join("\n",
                "PATH=" + SIM_BIN + ":" + System.getenv("PATH"),
                "HBM_SIM_HOME=" + tmp.resolve(name + "-sim"),
                "HBM_SIM_CLASSPATH=" + System.getProperty("java.class.path"),
                "HBM_SIM_STEP_MS=20", ""));
        Files.writeString(dir.resolve("labels"), "app=" + app + "\n");
        return dir;
    }

    @Test
    void twoPodsOfADeploymentCollectedThroughKubectl() throws Exception {
        pod("vllm-0", "vllm");
        pod("vllm-1", "vllm");
        pod("redis-0", "redis");
        Path kubeconfig = tmp.resolve("kubeconfig");
        Files.writeString(kubeconfig, "apiVersion: v1\nkind: Config\ncurrent-context: sim-a\n");
        // the simulated kubectl finds its pods through HBM_SIM_KUBE_HOME; the context is the kubeconfig's
        Kubectl kubectl = new Kubectl(SIM_BIN.resolve("kubectl").toString(), kubeconfig.toString(), null,
                Map.of("HBM_SIM_KUBE_HOME", tmp.resolve("kube").toString()));
        List<KubeTarget> pods = KubeHost.select(kubectl, "serving", "app=vllm", null);
        assertThat(pods).extracting(KubeTarget::pod).containsExactly("vllm-0", "vllm-1");

        ExecutionStore store = new ExecutionStore(tmp.resolve("state"));
        List<Node> nodes = new ArrayList<>();
        for (KubeTarget t : pods) {
            KubeHost h = new KubeHost(kubectl, t, Map.of());
            assertThat(h.run(List.of("hbm-sim", "init", "--npus", "2"), Map.of(), Duration.ofSeconds(60)).ok()).isTrue();
            nodes.add(new Node(Node.nameOf(h.name()), h, new Executions(h, store, tmp.resolve(t.pod() + "-runtime").toString())));
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = Math.min(s.getLocalPort(), 60000);
        }
        Path model = Path.of("examples/simulated-collect/model").toAbsolutePath();
        CollectSettings settings = new CollectSettings(1, 1, 1, Duration.ofMillis(200), Duration.ofMillis(300), Duration.ofSeconds(30),
                Duration.ofSeconds(120), Duration.ofSeconds(60), Duration.ofSeconds(60), 50,
                new Executions.StopTimeouts(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(20)),
                new Workload.Spec("completions", 4, 2, 32, 16, Duration.ofSeconds(30), Duration.ofSeconds(90)), null);
        Path run = tmp.resolve("run");

        Collector.Outcome o = new NodeSet(nodes, settings, new PrintStream(log, true, StandardCharsets.UTF_8))
                .standalone(run, rank -> ExecutionSpec.fromCommand(List.of("vllm", "serve", model.toString(), "-tp", "2",
                        "--port", Integer.toString(port + rank)), null, List.of(0, 1), Map.of(), 50, tmp.toString()));

        RunManifest top = RunDirectory.open(run).manifest();
        String out = log.toString(StandardCharsets.UTF_8);
        assertThat(o).as(out + top.incompleteReasons()).isEqualTo(Collector.Outcome.COMPLETE);
        assertThat(out).contains("[vllm-0] started execution", "on kube:serving/vllm-0");
        for (String pod : List.of("vllm-0", "vllm-1")) {
            Path node = run.resolve("nodes").resolve(pod);
            RunManifest m = RunDirectory.open(node).manifest();
            assertThat(m.status()).isEqualTo("complete");
            assertThat(m.deployment().extra().get("host")).isEqualTo("kube:serving/" + pod);
            // the runtime directory came back through the tar stream: the log and the msprof export
            assertThat(Files.readString(node.resolve("execution/server.log"))).contains("Available KV cache memory");
            assertThat(m.evidence()).anyMatch(e -> e.file().contains("/npu_module_mem_"));
        }
        nodes.forEach(n -> {
            try {
                n.host().close();
            } catch (Exception ignored) {
                // closing ends the port-forward processes
            }
        });
    }
}

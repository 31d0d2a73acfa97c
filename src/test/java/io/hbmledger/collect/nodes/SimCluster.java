package io.hbmledger.collect.nodes;

import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.LocalHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * N SIMULATED Ascend nodes on this machine, each with its own simulator state directory (sim/bin:
 * npu-smi, msprof, vllm SIMULATORS) and its own runtime directory; execution records in one local
 * state directory, as the collector keeps them. {@link #close()} kills every execution group.
 */
final class SimCluster implements AutoCloseable {

    static final Path SIM_BIN = Path.of("sim/bin").toAbsolutePath();

    final Path dir;
    final ExecutionStore store;
    final List<SimNodeHost> hosts = new ArrayList<>();
    final List<Node> nodes = new ArrayList<>();

    SimCluster(Path dir, int n, int npus) throws IOException {
        this.dir = dir;
        this.store = new ExecutionStore(dir.resolve("state"));
        Files.createDirectories(dir.resolve("state"));
        for (int i = 0; i < n; i++) {
            String name = "sim-node-" + i;
            Map<String, String> env = new LinkedHashMap<>();
            env.put("PATH", SIM_BIN + ":" + System.getenv("PATH"));
            env.put("HBM_SIM_HOME", dir.resolve(name).resolve("sim").toString());
            env.put("HBM_SIM_CLASSPATH", System.getProperty("java.class.path"));
            env.put("HBM_SIM_STEP_MS", "20");
            SimNodeHost h = new SimNodeHost(name, env);
            CommandResult init = h.run(List.of("hbm-sim", "init", "--npus", Integer.toString(npus)), Map.of(), Duration.ofSeconds(60));
            if (!init.ok()) {
                throw new IOException("hbm-sim init on " + name + ": " + init.stderrText());
            }
            String runtime = dir.resolve(name).resolve("runtime").toString();
            Files.createDirectories(Path.of(runtime));
            hosts.add(h);
            nodes.add(new Node(name, h, new Executions(h, store, runtime)));
        }
    }

    @Override
    public void close() throws IOException {
        LocalHost h = new LocalHost();
        for (ExecutionRecord r : store.list()) {
            if (!h.groupMembers(r.pgid()).isEmpty()) {
                h.signalGroup(r.pgid(), "KILL");
            }
        }
    }
}

package io.hbmledger.collect;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A temporary Ascend-like host for collector tests, made of the test doubles in
 * src/test/resources/collect/fakebin (npu-smi, msprof, vllm; not the project's simulator). Knobs
 * are environment variables read by those scripts. {@link #close()} kills every process group
 * the state directory knows of.
 */
final class FakeAscend implements AutoCloseable {

    static final Path BIN = Path.of("src/test/resources/collect/fakebin").toAbsolutePath();

    final Path dir;
    final Path state;
    final Map<String, String> env = new LinkedHashMap<>();
    final ByteArrayOutputStream log = new ByteArrayOutputStream();

    FakeAscend(Path dir) throws IOException {
        this.dir = dir;
        this.state = dir.resolve("state");
        Files.createDirectories(state);
        env.put("PATH", BIN + ":" + System.getenv("PATH"));
        env.put("FAKE_NPU_STATE", dir.resolve("npu").toString());
    }

    LocalHost host() {
        return new LocalHost(env);
    }

    ExecutionStore store() {
        return new ExecutionStore(state);
    }

    Executions executions(Host host) {
        return new Executions(host, store(), state.toString());
    }

    Collector collector(CollectSettings s) {
        return collector(host(), state.toString(), s);
    }

    /**
     * Puts sim/bin first on PATH, with a fresh simulated host made by {@code hbm-sim init INIT_ARGS}
     * (the simulators run on the test's own classpath, no jar).
     */
    void onSimulatedHost(Path simHome, String... initArgs) throws java.io.IOException {
        env.put("PATH", java.nio.file.Path.of("sim/bin").toAbsolutePath() + ":" + System.getenv("PATH"));
        env.put("HBM_SIM_HOME", simHome.toString());
        env.put("HBM_SIM_CLASSPATH", System.getProperty("java.class.path"));
        env.put("HBM_SIM_STEP_MS", "20");
        java.util.List<String> argv = new java.util.ArrayList<>(java.util.List.of("hbm-sim", "init"));
        argv.addAll(java.util.List.of(initArgs));
        CommandResult init = host().run(argv, java.util.Map.of(), java.time.Duration.ofSeconds(60));
        if (!init.ok()) {
            throw new IllegalStateException("hbm-sim init failed: " + init.stderrText());
        }
    }

    Collector collector(CollectSettings s, Accelerator accelerator) {
        return new Collector(host(), new Executions(host(), store(), state.toString(), accelerator), s,
                new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    Collector collector(Host host, String runtimeRoot, CollectSettings s) {
        return new Collector(host, new Executions(host, store(), runtimeRoot), s, new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    String output() {
        return log.toString(StandardCharsets.UTF_8);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Small and quick: 2 baseline, 1 ready, 1 after sample, 4 short requests. */
    static CollectSettings fast() {
        return new CollectSettings(2, 1, 1, Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofSeconds(5),
                Duration.ofSeconds(20), Duration.ofSeconds(10), Duration.ofSeconds(30), 50,
                new Executions.StopTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(3)),
                new Workload.Spec("completions", 4, 2, 16, 8, Duration.ofSeconds(5), Duration.ofSeconds(30)), null);
    }

    /** True when no process of any recorded execution is alive. */
    boolean nothingAlive() throws IOException {
        LocalHost h = host();
        for (ExecutionRecord r : store().list()) {
            if (!h.groupMembers(r.pgid()).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        LocalHost h = host();
        for (ExecutionRecord r : store().list()) {
            if (!h.groupMembers(r.pgid()).isEmpty()) {
                h.signalGroup(r.pgid(), "KILL");
            }
        }
    }
}

package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bash launchers in sim/bin, found through PATH as the collector finds them, with
 * HBM_SIM_CLASSPATH pointing at the test classpath (no jar needed). Each process runs in its own
 * process group, killed after the test.
 */
class SimLaunchersTest {

    private static final Path BIN = Path.of("sim/bin").toAbsolutePath();

    @TempDir
    Path dir;

    private SimStateStore store;
    private final List<Process> started = new ArrayList<>();

    @BeforeEach
    void host() throws IOException {
        store = new SimStateStore(dir.resolve("host"));
        store.init(SimStateStore.idleHost(8, "910B1", 65536));
    }

    @AfterEach
    void killGroups() throws Exception {
        for (Process p : started) {
            new ProcessBuilder("kill", "-KILL", "--", "-" + p.pid()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Process start(Map<String, String> env, String... command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("setsid"));
        cmd.addAll(List.of(command));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(dir.resolve("out-" + started.size() + ".txt").toFile())
                .redirectError(dir.resolve("err-" + started.size() + ".txt").toFile());
        pb.environment().put("PATH", BIN + ":" + System.getenv("PATH"));
        pb.environment().put("HBM_SIM_HOME", store.home().toString());
        pb.environment().put("HBM_SIM_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().put("HBM_SIM_JAVA", ProcessHandle.current().info().command().orElse("java"));
        pb.environment().remove("ASCEND_RT_VISIBLE_DEVICES");
        pb.environment().putAll(env);
        Process p = pb.start();
        started.add(p);
        return p;
    }

    private String out(int i) throws IOException {
        return Files.readString(dir.resolve("out-" + i + ".txt"));
    }

    private String err(int i) throws IOException {
        return Files.readString(dir.resolve("err-" + i + ".txt"));
    }

    @Test
    void npuSmiLauncherPrintsTheTableAndHonoursFaults() throws Exception {
        Process p = start(Map.of(), "npu-smi", "info");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(out(0)).isEqualTo(NpuSmiFormat.info(store.read()));

        Process bad = start(Map.of(), "npu-smi", "info", "-t", "usages", "-i", "9");
        assertThat(bad.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(bad.exitValue()).isEqualTo(2);
        assertThat(err(1)).contains("simulated host has no NPU 9");

        Process hang = start(Map.of("HBM_SIM_NPU_SMI_HANG", "1"), "npu-smi", "info");
        assertThat(hang.waitFor(3, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void serverStartedWithSigintIgnoredNeedsSigterm() throws Exception {
        int port = VllmServerSimTest.freePort();
        Process p = start(Map.of("HBM_SIM_VLLM_IGNORE_SIGNALS", "INT"), "vllm", "serve", "m", "--port",
                String.valueOf(port), "--sim-step-ms", "1", "--sim-weights-gib", "1");
        awaitText(0, "Application startup complete.", p);
        signal(p, "INT");
        assertThat(p.waitFor(3, TimeUnit.SECONDS)).as("SIGINT is ignored").isFalse();
        signal(p, "TERM");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(err(0)).contains("Application shutdown complete.");
        assertThat(store.read().device(0).allocations()).isEmpty();
    }

    @Test
    void msprofWrapsVllmThroughPathAsTheCollectorRunsThem() throws Exception {
        int port = VllmServerSimTest.freePort();
        Path out = dir.resolve("msprof out");  // a space in the path, passed as one argument
        Process p = start(Map.of("ASCEND_RT_VISIBLE_DEVICES", "6,7"), "msprof", "--output=" + out,
                "--sys-hardware-mem=on", "--sys-hardware-mem-freq=50", "vllm", "serve", "m", "--port",
                String.valueOf(port), "-tp", "2", "--sim-step-ms", "1", "--sim-weights-gib", "1");
        awaitText(0, "Application startup complete.", p);
        assertThat(store.read().device(7).allocations()).isNotEmpty();
        signal(p, "INT");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(store.read().device(6).allocations()).isEmpty();
        Process export = start(Map.of(), "msprof", "--export=on", "--output=" + out);
        assertThat(export.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(export.exitValue()).isZero();
        List<Path> csv = new ArrayList<>();
        try (DirectoryStream<Path> profs = Files.newDirectoryStream(out, "PROF_*")) {
            for (Path prof : profs) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(prof.resolve("mindstudio_profiler_output"), "*.csv")) {
                    ds.forEach(csv::add);
                }
            }
        }
        assertThat(csv).extracting(f -> f.getFileName().toString().replaceAll("_\\d{14}\\.csv$", ""))
                .containsExactlyInAnyOrder("npu_mem", "npu_module_mem", "memory_record");
    }

    private void awaitText(int i, String text, Process p) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline && p.isAlive()) {
            if (out(i).contains(text) || err(i).contains(text)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no '" + text + "'\n" + out(i) + "\n" + err(i));
    }

    private static void signal(Process p, String sig) throws Exception {
        new ProcessBuilder("kill", "-" + sig, "--", "-" + p.pid()).start().waitFor();
    }
}

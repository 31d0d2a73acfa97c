package io.hbmledger.collect.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.cli.Main;
import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.LocalHost;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Collection on "another host" reached over SSH: a real OpenSSH sshd on loopback, started by the
 * test, whose PATH holds the fake npu-smi / msprof / vllm of src/test/resources/collect/fakebin.
 */
class SshCollectTest {

    static final Path BIN = Path.of("src/test/resources/collect/fakebin").toAbsolutePath();

    @TempDir
    Path tmp;
    OpenSshServer sshd;

    @BeforeEach
    void setUp() throws Exception {
        sshd = OpenSshServer.start(tmp.resolve("sshd"));
    }

    @AfterEach
    void tearDown() throws Exception {
        ExecutionStore store = new ExecutionStore(tmp.resolve("state"));
        LocalHost local = new LocalHost();   // sshd runs on this machine: its groups can be seen here
        for (ExecutionRecord r : store.list()) {
            if (!local.groupMembers(r.pgid()).isEmpty()) {
                local.signalGroup(r.pgid(), "KILL");
            }
        }
        if (sshd != null) {
            sshd.close();
        }
    }

    @Test
    void standaloneCollectionOverSshWithALiteralRemoteArgument() throws Exception {
        Path model = tmp.resolve("remote model 'q' $(touch pwned); ls");
        Files.createDirectories(model);
        Files.writeString(model.resolve("config.json"), "{\"hidden_size\": 8}\n");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path args = tmp.resolve("args.json");
        Path run = tmp.resolve("run");
        StringWriter out = new StringWriter();
        CommandLine cl = Main.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        int rc = cl.execute("collect", "--host", sshd.target(), "--identity", sshd.userKey.toString(),
                "--known-hosts", sshd.knownHosts.toString(), "--remote-state-dir", tmp.resolve("remote-state").toString(),
                "--remote-env", "PATH=" + BIN + ":/usr/local/bin:/usr/bin:/bin",
                "--remote-env", "FAKE_NPU_STATE=" + tmp.resolve("npu"),
                "--remote-env", "FAKE_ARGS_FILE=" + args,
                "--state-dir", tmp.resolve("state").toString(), "--out", run.toString(), "--devices", "1",
                "--baseline-samples", "1", "--ready-samples", "1", "--after-samples", "1", "--sample-interval", "0.1",
                "--load-interval", "0.2", "--requests", "2", "--concurrency", "2", "--input-tokens", "8", "--output-tokens", "4",
                "--stop-timeout", "5",
                "--", "vllm", "serve", model.toString(), "--port", Integer.toString(port));

        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(rc).as(m.incompleteReasons().toString()).isZero();
        assertThat(m.status()).isEqualTo("complete");
        assertThat(m.deployment().extra().get("host")).isEqualTo(sshd.target());
        // started with job control on the remote side, so SIGINT was not ignored and stopped it
        assertThat(m.deployment().extra().get("stop").toString()).contains("stopped after SIGINT");
        assertThat(m.evidence().stream().map(RunManifest.EvidenceEntry::file))
                .contains("npu-smi/baseline-001.txt", "npu-smi/ready-001.txt", "npu-smi/after-001.txt", "execution/server.log",
                        "execution/msprof/PROF_000001_fake/device_1/summary/npu_mem_device_1.csv", "model/config.json");
        // the ready sample, taken over SSH, shows the server's worker on device 1
        assertThat(Files.readString(run.resolve("npu-smi/ready-001.txt"))).contains("VLLMWorker");
        // the runtime directory came over whole (one tar stream), execution.json included
        assertThat(run.resolve("execution").resolve(ExecutionRecord.FILE)).exists();
        @SuppressWarnings("unchecked")
        List<String> got = new ObjectMapper().readValue(args.toFile(), List.class);
        assertThat(got).containsExactly("serve", model.toString(), "--port", Integer.toString(port));
        assertThat(tmp.resolve("pwned")).doesNotExist();
        assertThat(Path.of("pwned")).doesNotExist();
        // stopped on the remote side: npu-smi there lists nothing
        ExecutionRecord rec = new ExecutionStore(tmp.resolve("state")).get(m.executionId());
        assertThat(rec.state()).isEqualTo("stopped");
        assertThat(rec.host()).isEqualTo(sshd.target());
        assertThat(new LocalHost().groupMembers(rec.pgid())).isEmpty();
        // issue 14: the runtime directory is removed on the remote host once its copy is verified
        assertThat(Path.of(rec.runtimeDir())).doesNotExist();
        assertThat(out.toString() + m.incompleteReasons()).doesNotContain("could not remove");
    }

    /**
     * issue 14: the copy ran at ~40 KB/s (a 32 KB pipe polled every 10 ms) under a fixed 30-minute
     * limit. Now one tar stream straight into the local tar, verified file by file; 64 MiB of
     * random bytes (no compression helps) in several files, nested, arrive byte for byte, and the
     * remote directory stays when asked to.
     */
    @Test
    void aLargeRuntimeDirectoryArrivesWholeAndIsKeptWhenAsked() throws Exception {
        Path remote = Files.createDirectories(tmp.resolve("remote-runtime/msprof/PROF_1/device_0/data"));
        java.util.Random random = new java.util.Random(14);
        byte[] chunk = new byte[16 << 20];
        for (int i = 0; i < 4; i++) {
            random.nextBytes(chunk);
            Files.write(remote.resolve("hbm.data.slice_" + i), chunk);
        }
        Files.writeString(tmp.resolve("remote-runtime/server.log"), "log line\n");
        Path local = tmp.resolve("copy");
        try (SshHost h = SshHost.connect(sshd.target(), sshd.userKey, sshd.knownHosts, Map.of(), Duration.ofSeconds(20), true)) {
            h.fetchDirectory(tmp.resolve("remote-runtime").toString(), local, Duration.ofSeconds(30));
            assertThat(h.discardCopied(tmp.resolve("remote-runtime").toString())).isEmpty();
        }
        for (int i = 0; i < 4; i++) {
            Path f = Path.of("msprof/PROF_1/device_0/data/hbm.data.slice_" + i);
            assertThat(Files.mismatch(tmp.resolve("remote-runtime").resolve(f), local.resolve(f))).isEqualTo(-1L);
        }
        assertThat(local.resolve("server.log")).hasContent("log line");
        assertThat(tmp.resolve("remote-runtime")).isDirectory();
    }

    @Test
    void aKilledCollectorLeavesNoServerOnTheRemoteHost() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path run = tmp.resolve("run");
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "collect",
                "--host", sshd.target(), "--identity", sshd.userKey.toString(), "--known-hosts", sshd.knownHosts.toString(),
                "--remote-state-dir", tmp.resolve("remote-state").toString(),
                "--remote-env", "PATH=" + BIN + ":/usr/local/bin:/usr/bin:/bin",
                "--remote-env", "FAKE_NPU_STATE=" + tmp.resolve("npu"),
                "--remote-env", "FAKE_TOKEN_DELAY=1",
                "--state-dir", tmp.resolve("state").toString(), "--out", run.toString(), "--devices", "0",
                "--baseline-samples", "1", "--ready-samples", "1", "--requests", "2", "--output-tokens", "60",
                "--", "vllm", "serve", "m", "--port", Integer.toString(port)));
        Process collector = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("collect.out").toFile()).start();
        try {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() < deadline) {
                if (Files.exists(run.resolve("run.json"))
                        && "load".equals(new ObjectMapper().readTree(run.resolve("run.json").toFile()).path("phase").asText())) {
                    break;
                }
                assertThat(collector.isAlive()).as(Files.readString(tmp.resolve("collect.out"))).isTrue();
                Thread.sleep(100);
            }
            RunManifest m = RunDirectory.open(run).manifest();
            assertThat(m.phase()).isEqualTo("load");
            ExecutionRecord rec = new ExecutionStore(tmp.resolve("state")).get(m.executionId());
            assertThat(new LocalHost().groupMembers(rec.pgid())).isNotEmpty();

            new ProcessBuilder("kill", "-KILL", Long.toString(collector.pid())).start().waitFor();
            assertThat(collector.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

            // sshd closes the guard's channel; the guard stops the group (INT first)
            long gone = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(40);
            while (!new LocalHost().groupMembers(rec.pgid()).isEmpty() && System.nanoTime() < gone) {
                Thread.sleep(200);
            }
            assertThat(new LocalHost().groupMembers(rec.pgid())).as("remote server group after the collector died").isEmpty();
            assertThat(Files.readString(Path.of(rec.runtimeDir(), "server.log"))).contains("stopping on signal 2");
        } finally {
            collector.destroyForcibly();
        }
    }

    /**
     * issue 14: only the server group was guarded; a SIGKILL while a remote npu-smi or
     * {@code msprof --export} ran left it running on the remote host. Now each remote command runs
     * under a wrapper whose stdin is the SSH channel: the connection's end kills its group.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "SIGKILL during {0}")
    @org.junit.jupiter.params.provider.CsvSource({"preflight,FAKE_NPU_SMI_SLEEP=30", "export,FAKE_MSPROF_EXPORT_HANG=1"})
    void aKilledCollectorLeavesNoRemoteCommand(String phase, String knob) throws Exception {
        Path run = tmp.resolve("run");
        String marker = "FAKE_NPU_STATE=" + tmp.resolve("npu");
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "collect",
                "--host", sshd.target(), "--identity", sshd.userKey.toString(), "--known-hosts", sshd.knownHosts.toString(),
                "--remote-state-dir", tmp.resolve("remote-state").toString(),
                "--remote-env", "PATH=" + BIN + ":/usr/local/bin:/usr/bin:/bin", "--remote-env", marker, "--remote-env", knob,
                "--state-dir", tmp.resolve("state").toString(), "--out", run.toString(), "--devices", "0",
                "--baseline-samples", "1", "--ready-samples", "1", "--after-samples", "1", "--requests", "1",
                "--output-tokens", "2", "--stop-timeout", "5", "--export-timeout", "300",
                "--", "vllm", "serve", "m", "--port", Integer.toString(freePort())));
        Process collector = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("collect.out").toFile()).start();
        try {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() < deadline && !phase.equals(phaseOf(run))) {
                assertThat(collector.isAlive()).as(Files.readString(tmp.resolve("collect.out"))).isTrue();
                Thread.sleep(100);
            }
            // the hung fake (npu-smi or msprof --export) is sleeping on the remote side
            long hung = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            while (marked(marker).stream().noneMatch(p -> p.contains(" sleep ")) && System.nanoTime() < hung) {
                Thread.sleep(100);
            }
            assertThat(marked(marker)).as("the remote command runs before the kill").anyMatch(p -> p.contains(" sleep "));
            new ProcessBuilder("kill", "-KILL", Long.toString(collector.pid())).start().waitFor();
            assertThat(collector.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            long gone = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(40);
            while (!marked(marker).isEmpty() && System.nanoTime() < gone) {
                Thread.sleep(200);
            }
            assertThat(marked(marker)).as("remote processes left after the collector died").isEmpty();
        } finally {
            collector.destroyForcibly();
        }
    }

    static String phaseOf(Path run) {
        try {
            return new ObjectMapper().readTree(run.resolve("run.json").toFile()).path("phase").asText();
        } catch (java.io.IOException notYet) {
            return null;
        }
    }

    static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Live processes whose environment holds {@code marker} (every remote command of the test gets it). */
    static List<String> marked(String marker) throws java.io.IOException {
        List<String> out = new java.util.ArrayList<>();
        byte[] m = (marker + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (java.util.stream.Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path d : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String stat = Files.readString(d.resolve("stat"));
                    if (!stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z")
                            && new String(Files.readAllBytes(d.resolve("environ")), java.nio.charset.StandardCharsets.ISO_8859_1)
                                    .contains(new String(m, java.nio.charset.StandardCharsets.ISO_8859_1))) {
                        out.add(d.getFileName() + " " + new String(Files.readAllBytes(d.resolve("cmdline"))).replace('\0', ' '));
                    }
                } catch (java.io.IOException | RuntimeException gone) {
                    // ended while we looked
                }
            }
        }
        return out;
    }

    @Test
    void anUnknownHostKeyIsRefused() throws Exception {
        Path otherKnownHosts = tmp.resolve("other_known_hosts");
        Process k = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", tmp.resolve("other").toString()).start();
        assertThat(k.waitFor()).isZero();
        String[] pub = Files.readString(tmp.resolve("other.pub")).split("\\s+");
        Files.writeString(otherKnownHosts, "[127.0.0.1]:" + sshd.port + " " + pub[0] + " " + pub[1] + "\n");
        assertThatThrownBy(() -> SshHost.connect(sshd.target(), sshd.userKey, otherKnownHosts, Map.of(), Duration.ofSeconds(20)))
                .isInstanceOf(CollectException.class).hasMessageContaining("never accepts unknown keys");
        Files.writeString(otherKnownHosts, "");
        assertThatThrownBy(() -> SshHost.connect(sshd.target(), sshd.userKey, otherKnownHosts, Map.of(), Duration.ofSeconds(20)))
                .isInstanceOf(CollectException.class).hasMessageContaining("never accepts unknown keys");
    }

    @Test
    void remoteCommandsGetTheirArgumentsLiterally() throws Exception {
        try (SshHost h = SshHost.connect(sshd.target(), sshd.userKey, sshd.knownHosts, Map.of(), Duration.ofSeconds(20))) {
            List<String> nasty = List.of("a b", "it's", "\"q\"", "$(id)", "x;y", "`id`", "");
            CommandResult r = h.run(concat(List.of("python3", "-c", "import json,sys; print(json.dumps(sys.argv[1:]))"), nasty),
                    Map.of(), Duration.ofSeconds(20));
            assertThat(r.ok()).as(r.stderrText()).isTrue();
            assertThat(new ObjectMapper().readValue(r.stdoutText(), List.class)).isEqualTo(nasty);
            // a hung remote command is cut at its timeout
            CommandResult hung = h.run(List.of("sleep", "30"), Map.of(), Duration.ofSeconds(1));
            assertThat(hung.timedOut()).isTrue();
        }
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new java.util.ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}

package io.hbmledger.collect.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.RunJournal;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * issue 14, over SSH: a collector on "another host" (the test's sshd on 127.0.0.1, PATH with the
 * fake npu-smi / msprof / vllm of src/test/resources/collect/fakebin) is killed with SIGKILL at each
 * phase, then {@code collect --resume} runs with the same execution id. Two ways the connection
 * can end: {@code closed} (the host sees it: the guards and wrappers end everything) and
 * {@code held} (a relay keeps the sshd side open, as when the network drops with the collector:
 * everything keeps running until the resume, on a new connection, finds it by its label and ends
 * it). Either way: run.json is never complete with a planned phase not done, no process of the run
 * is left on the host, and every evidence file named before the kill is still named, unchanged.
 * One sshd serves every case.
 */
class SshResumeTest {

    static final Path BIN = Path.of("src/test/resources/collect/fakebin").toAbsolutePath();

    @TempDir
    static Path shared;
    static OpenSshServer sshd;

    @TempDir
    Path tmp;
    HeldLink link;
    Process collector;
    String marker;

    @BeforeAll
    static void startSshd() throws Exception {
        sshd = OpenSshServer.start(shared.resolve("sshd"));
    }

    @AfterAll
    static void stopSshd() {
        if (sshd != null) {
            sshd.close();
        }
    }

    @BeforeEach
    void setUp() {
        marker = "FAKE_NPU_STATE=" + tmp.resolve("npu");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (collector != null) {
            collector.destroyForcibly();
        }
        if (link != null) {
            link.close();
        }
        for (String p : SshCollectTest.marked(marker)) {
            ProcessHandle.of(Long.parseLong(p.substring(0, p.indexOf(' ')))).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Options and remote knobs that make {@code phase} last long enough to be caught. */
    static List<String> slowAt(String phase) {
        Map<String, String> o = io.hbmledger.collect.QuickCollect.options();
        o.put("--load-interval", "0.5");      // each load sample is an SSH round trip
        o.put("--export-timeout", "300");
        List<String> knobs = new ArrayList<>();
        switch (phase) {
            case "preflight" -> knobs.add("FAKE_NPU_SMI_SLEEP=90");
            case "baseline" -> o.put("--baseline-samples", "200");
            case "ready" -> knobs.add("FAKE_START_DELAY=90");
            case "load" -> {
                knobs.add("FAKE_TOKEN_DELAY=1");
                o.put("--output-tokens", "90");
            }
            case "after" -> o.put("--after-samples", "200");
            case "stop" -> {
                knobs.add("FAKE_IGNORE_INT=1");
                o.put("--stop-timeout", "90");
            }
            case "export" -> knobs.add("FAKE_MSPROF_EXPORT_HANG=1");
            default -> throw new IllegalArgumentException(phase);
        }
        List<String> a = new ArrayList<>();
        o.forEach((k, v) -> a.addAll(List.of(k, v)));
        knobs.forEach(k -> a.addAll(List.of("--remote-env", k)));
        return a;
    }

    @ParameterizedTest(name = "SIGKILL during {0}, connection {1}, then resume")
    @CsvSource({"preflight,held", "baseline,held", "ready,held", "load,held", "after,held", "stop,held", "export,held",
        "ready,closed", "export,closed"})
    void resumeOverSshAfterSigkill(String phase, String connection) throws Exception {
        boolean held = connection.equals("held");
        Path model = Files.createDirectories(tmp.resolve("model"));
        Files.writeString(model.resolve("config.json"), "{\"hidden_size\": 8}\n");
        Path knownHosts = tmp.resolve("known_hosts");
        Files.copy(sshd.knownHosts, knownHosts);
        String target = sshd.target();
        if (held) {
            link = new HeldLink(sshd.port);
            String[] line = Files.readString(sshd.knownHosts).strip().split(" ", 2);
            Files.writeString(knownHosts, "[127.0.0.1]:" + link.port + " " + line[1] + "\n", java.nio.file.StandardOpenOption.APPEND);
            target = sshd.user + "@127.0.0.1:" + link.port;
        }
        Path run = tmp.resolve("run");
        List<String> args = new ArrayList<>(connection(target, knownHosts));
        args.addAll(List.of("--out", run.toString(), "--devices", "0"));
        args.addAll(slowAt(phase));
        args.addAll(List.of("--", "vllm", "serve", model.toString(), "--port", Integer.toString(SshCollectTest.freePort())));
        collector = cli(args, tmp.resolve("collect.out"));

        waitForPhase(run, phase);
        if (phase.equals("preflight") || phase.equals("export")) {
            // the hung fake (npu-smi or msprof --export) sleeps on the remote side
            waitUntil(() -> SshCollectTest.marked(marker).stream().anyMatch(p -> p.contains(" sleep ")), 60, "the hung remote command");
        }
        Thread.sleep(300);
        new ProcessBuilder("kill", "-KILL", Long.toString(collector.pid())).start().waitFor();
        assertThat(collector.waitFor(30, TimeUnit.SECONDS)).isTrue();

        RunManifest killed = RunDirectory.open(run).manifest();
        assertThat(killed.status()).isEqualTo("running");
        Map<String, byte[]> before = new LinkedHashMap<>();
        for (RunManifest.EvidenceEntry e : killed.evidence()) {
            before.put(e.file(), Files.readAllBytes(run.resolve(e.file())));
        }
        boolean somethingRan = !phase.equals("baseline");   // a baseline npu-smi may or may not be running
        if (held && somethingRan) {
            Thread.sleep(2000);
            assertThat(SshCollectTest.marked(marker)).as("the host never saw the connection end: the run's processes still run")
                    .isNotEmpty();
        } else if (!held) {
            waitUntil(() -> SshCollectTest.marked(marker).isEmpty(), 60, "the guards ending the run's processes");
        }

        // resume over a new, direct connection with the same execution id, without the slowing knobs
        List<String> resume = new ArrayList<>(List.of("--resume", run.toString(), "--stop-timeout", "3"));
        if (killed.executionId() != null) {
            resume.addAll(List.of("--execution", killed.executionId()));
        }
        // the same --host: through the relay, whose old connections stay held while new ones pass
        resume.addAll(connection(target, knownHosts));
        Process r = cli(resume, tmp.resolve("resume.out"));
        assertThat(r.waitFor(180, TimeUnit.SECONDS)).as("resume ended").isTrue();
        String out = Files.readString(tmp.resolve("resume.out"));

        RunManifest m = RunDirectory.open(run).manifest();
        List<String> planned = RunJournal.load(run).phasesPlanned();
        List<String> done = RunJournal.load(run).phasesDone();
        boolean complete = phase.equals("stop") || phase.equals("export");
        assertThat(r.exitValue()).as(out).isEqualTo(complete ? 0 : 3);
        assertThat(m.status()).as(out).isEqualTo(complete ? "complete" : "incomplete");
        if (m.status().equals("complete")) {
            assertThat(done).as("complete only with every planned phase done").containsExactlyInAnyOrderElementsOf(planned);
            assertThat(m.evidence().stream().map(RunManifest.EvidenceEntry::file))
                    .contains("execution/msprof/PROF_000001_fake/device_0/summary/npu_mem_device_0.csv", "model/config.json",
                            "execution/server.log");
        } else if (killed.executionId() != null) {
            assertThat(done).doesNotContain(phase);
            assertThat(m.incompleteReasons()).anyMatch(x -> x.startsWith("phase " + phase + " was not finished"));
        } else {
            assertThat(m.incompleteReasons()).anyMatch(x -> x.contains("stopped in phase " + phase + ", before a server was started"));
        }

        // no process of the run is left on the host
        waitUntil(() -> SshCollectTest.marked(marker).isEmpty(), 10, "no process of the run left");
        if (held && somethingRan) {
            // the resume said what it ended: the hung command, or the server (stopped gently) and its guard
            assertThat(out).contains("resume: ended on " + target + " what the collector of " + m.runId() + " left running");
            assertThat(m.deployment().extra()).containsKey("resume_ended");
            if (phase.equals("preflight")) {
                assertThat(out).contains("wrapper of: timeout", "npu-smi info");
            } else if (phase.equals("export")) {
                assertThat(out).contains("msprof --export=on");
            } else {
                assertThat(out).contains("guard of process group ", "started by this run, was still running on " + target
                        + " after its collector died: stopped after SIG");
            }
        }
        if (killed.executionId() != null) {
            ExecutionRecord rec = new ExecutionStore(tmp.resolve("state")).get(killed.executionId());
            assertThat(rec.state()).isEqualTo("stopped");
        }
        // no evidence lost: every file named before the kill is still named, byte for byte, and every named file is there
        for (Map.Entry<String, byte[]> e : before.entrySet()) {
            assertThat(m.evidence()).anyMatch(x -> x.file().equals(e.getKey()));
            assertThat(Files.readAllBytes(run.resolve(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
        }
        for (RunManifest.EvidenceEntry e : m.evidence()) {
            assertThat(run.resolve(e.file())).as(e.file()).isRegularFile();
        }
    }

    /**
     * An attached collection killed during the load while the host never saw the connection end:
     * the resume ends its remote commands (a sampler's npu-smi) but never the attached server, then
     * refuses while that server runs (exit 2, run.json unchanged); once it was stopped, the resume
     * goes on and ends incomplete (load and after were not finished).
     */
    @org.junit.jupiter.api.Test
    void resumeEndsAnAttachedRunsLeftoversButNeverItsServer() throws Exception {
        link = new HeldLink(sshd.port);
        Path knownHosts = tmp.resolve("known_hosts");
        String[] line = Files.readString(sshd.knownHosts).strip().split(" ", 2);
        Files.writeString(knownHosts, "[127.0.0.1]:" + link.port + " " + line[1] + "\n");
        String target = sshd.user + "@127.0.0.1:" + link.port;
        int port = SshCollectTest.freePort();
        ExecutionStore store = new ExecutionStore(tmp.resolve("state"));
        ExecutionRecord rec;
        try (SshHost h = SshHost.connect(target, sshd.userKey, knownHosts, Map.of("PATH", BIN + ":/usr/local/bin:/usr/bin:/bin",
                "FAKE_NPU_STATE", tmp.resolve("npu").toString(), "FAKE_TOKEN_DELAY", "1"), java.time.Duration.ofSeconds(20))) {
            io.hbmledger.collect.Executions ex = new io.hbmledger.collect.Executions(h, store, tmp.resolve("remote-state").toString());
            io.hbmledger.collect.ExecutionSpec spec = io.hbmledger.collect.ExecutionSpec.fromCommand(
                    List.of("vllm", "serve", "m", "--port", Integer.toString(port)), null, List.of(0), Map.of(), null, null);
            rec = ex.awaitReady(ex.start(spec, "exec-attached", "exec start"),
                    new io.hbmledger.collect.ServerClient(h.reach(port), null), java.time.Duration.ofSeconds(30));
        }
        Path run = tmp.resolve("run");
        Path calls = Files.createFile(tmp.resolve("npu-smi-calls"));
        List<String> args = new ArrayList<>(connection(target, knownHosts));
        args.addAll(List.of("--out", run.toString(), "--attach", rec.id(), "--ready-samples", "1", "--after-samples", "1",
                "--requests", "2", "--output-tokens", "60", "--load-interval", "0.5", "--npu-smi-timeout", "300",
                "--remote-env", "FAKE_NPU_SMI_CALLS=" + calls, "--remote-env", "FAKE_NPU_SMI_HANG_AFTER=100000"));
        collector = cli(args, tmp.resolve("collect.out"));
        waitForPhase(run, "load");
        // the run's processes carry its id (the folder's name and 8 random hex digits, RunJournal.newRunId)
        String label = SshHost.LABEL + "=" + io.hbmledger.run.RunDirectory.open(run).manifest().runId();
        // from now on npu-smi hangs (the fake counts its calls in that file): a load sample's npu-smi
        // stays on the host, labelled with the run
        Files.writeString(calls, "x\n".repeat(100_001), java.nio.file.StandardOpenOption.APPEND);
        waitUntil(() -> SshCollectTest.marked(label).stream().anyMatch(p -> p.contains(" sleep 600")), 60, "a labelled npu-smi");
        new ProcessBuilder("kill", "-KILL", Long.toString(collector.pid())).start().waitFor();
        assertThat(collector.waitFor(30, TimeUnit.SECONDS)).isTrue();
        RunManifest killed = RunDirectory.open(run).manifest();
        Thread.sleep(1000);
        assertThat(SshCollectTest.marked(label)).as("the host never saw the connection end").isNotEmpty();
        byte[] json = Files.readAllBytes(run.resolve("run.json"));

        List<String> resume = new ArrayList<>(List.of("--resume", run.toString(), "--execution", rec.id()));
        resume.addAll(connection(target, knownHosts));
        Process r = cli(resume, tmp.resolve("resume.out"));
        assertThat(r.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(tmp.resolve("resume.out"));
        assertThat(r.exitValue()).as(out).isEqualTo(2);
        String runId = label.substring(label.indexOf('=') + 1);
        assertThat(out).contains("resume: ended on " + target + " what the collector of " + runId + " left running (not the server,"
                + " process group " + rec.pgid() + ")", "npu-smi info",
                "execution exec-attached is still running; stop it first with 'hbm-ledger exec stop exec-attached', then resume");
        assertThat(SshCollectTest.marked(label)).as("nothing of the run left").isEmpty();
        io.hbmledger.collect.LocalHost here = new io.hbmledger.collect.LocalHost();   // sshd runs on this machine
        assertThat(here.groupMembers(rec.pgid())).as("the attached server still runs").isNotEmpty();
        assertThat(Files.readAllBytes(run.resolve("run.json"))).as("a refused resume writes nothing").isEqualTo(json);

        here.signalGroup(rec.pgid(), "INT");
        waitUntil(() -> here.groupMembers(rec.pgid()).isEmpty(), 30, "the attached server stopped by its user");
        Process again = cli(resume, tmp.resolve("resume2.out"));
        assertThat(again.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String out2 = Files.readString(tmp.resolve("resume2.out"));
        assertThat(again.exitValue()).as(out2).isEqualTo(3);
        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(m.status()).isEqualTo("incomplete");
        assertThat(RunJournal.load(run).phasesDone()).doesNotContain("load", "after");
        assertThat(m.incompleteReasons()).anyMatch(x -> x.startsWith("phase load was not finished"));
        for (RunManifest.EvidenceEntry e : killed.evidence()) {
            assertThat(m.evidence()).anyMatch(x -> x.file().equals(e.file()));
        }
    }

    List<String> connection(String target, Path knownHosts) {
        return List.of("--host", target, "--identity", sshd.userKey.toString(), "--known-hosts", knownHosts.toString(),
                "--remote-state-dir", tmp.resolve("remote-state").toString(),
                "--remote-env", "PATH=" + BIN + ":/usr/local/bin:/usr/bin:/bin", "--remote-env", marker,
                "--state-dir", tmp.resolve("state").toString());
    }

    /** {@code hbm-ledger collect ARGS} in its own JVM, output to {@code out}. */
    static Process cli(List<String> args, Path out) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "collect"));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    void waitForPhase(Path run, String phase) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!phase.equals(SshCollectTest.phaseOf(run))) {
            assertThat(collector.isAlive()).as("collector alive before phase " + phase + ": "
                    + Files.readString(tmp.resolve("collect.out"))).isTrue();
            assertThat(System.nanoTime()).as("phase " + phase + " reached in 90 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    interface Check {
        boolean holds() throws Exception;
    }

    void waitUntil(Check c, int seconds, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!c.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within " + seconds + " s; processes: " + SshCollectTest.marked(marker));
            }
            Thread.sleep(200);
        }
    }
}

package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Kills a real {@code hbm-ledger collect} process (its own JVM) at each phase, with SIGINT (Ctrl-C)
 * or SIGKILL, and checks that nothing it started survives and that run.json names the phase.
 */
class CollectInterruptTest {

    @TempDir
    Path tmp;
    FakeAscend fake;
    Process collector;

    @BeforeEach
    void setUp() throws Exception {
        fake = new FakeAscend(tmp);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (collector != null && collector.isAlive()) {
            collector.destroyForcibly();
        }
        fake.close();
        for (long pid : leftovers()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Settings that make {@code phase} last long enough to be caught. */
    List<String> slowAt(String phase) {
        Map<String, String> o = QuickCollect.options();
        switch (phase) {
            case "preflight" -> fake.env.put("FAKE_NPU_SMI_SLEEP", "90");
            case "baseline" -> o.put("--baseline-samples", "200");
            case "ready" -> fake.env.put("FAKE_START_DELAY", "60");
            case "load" -> {
                fake.env.put("FAKE_TOKEN_DELAY", "1");
                o.put("--output-tokens", "60");
            }
            case "after" -> o.put("--after-samples", "200");
            case "stop" -> {
                fake.env.put("FAKE_IGNORE_INT", "1");
                o.put("--stop-timeout", "60");
            }
            case "export" -> fake.env.put("FAKE_MSPROF_EXPORT_HANG", "1");
            default -> throw new IllegalArgumentException(phase);
        }
        List<String> a = new ArrayList<>();
        o.forEach((k, v) -> {
            a.add(k);
            a.add(v);
        });
        return a;
    }

    @ParameterizedTest(name = "{1} during {0}")
    @CsvSource({"preflight,INT", "baseline,INT", "ready,INT", "load,INT", "after,INT", "stop,INT", "export,INT",
        "load,TERM", "preflight,KILL", "baseline,KILL", "ready,KILL", "load,KILL", "after,KILL", "stop,KILL", "export,KILL"})
    void anInterruptedCollectionLeavesNoProcessAndNamesThePhase(String phase, String signal) throws Exception {
        int port = FakeAscend.freePort();
        Path run = tmp.resolve("run");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "collect",
                "--state-dir", fake.state.toString(), "--out", run.toString(), "--devices", "0", "--port", Integer.toString(port)));
        cmd.addAll(slowAt(phase));
        cmd.addAll(List.of("--", "vllm", "serve", tmp.resolve("model dir").toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(fake.env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(tmp.resolve("collect.out").toFile());
        collector = pb.start();

        waitForPhase(run, phase);
        Thread.sleep(300);
        new ProcessBuilder("kill", "-" + signal, Long.toString(collector.pid())).start().waitFor();
        assertThat(collector.waitFor(60, TimeUnit.SECONDS)).as("collector exited").isTrue();
        String out = Files.readString(tmp.resolve("collect.out"));

        assertThat(collector.exitValue()).as(out).isNotZero();
        JsonNode m = new ObjectMapper().readTree(run.resolve("run.json").toFile());
        assertThat(m.path("phase").asText()).as(out).isEqualTo(phase);
        if (!signal.equals("KILL")) {
            assertThat(m.path("status").asText()).isEqualTo("failed");
            assertThat(m.path("incomplete_reasons").toString()).contains("interrupted (SIGINT or SIGTERM) during phase " + phase)
                    // requests cut by the interrupt are cancelled, not failures of the server
                    .doesNotContain("load requests failed");
            // was: exit 130 and nothing said. Now the phase, what is kept and the command that goes on
            assertThat(out).contains("hbm-ledger collect: interrupted during phase " + phase + ".",
                    "kept: " + run.resolve("run.json") + " (status failed, phase " + phase + ")");
            if (phase.equals("preflight") || phase.equals("baseline")) {
                assertThat(out).contains("no server was started, so there is nothing to resume");
            } else {
                assertThat(out).contains("to continue: hbm-ledger collect --resume " + run + " --execution "
                        + m.path("execution_id").asText() + " --state-dir " + fake.state);
            }
        }
        // SIGKILL gives the JVM no chance: the guard started beside the server stops it (INT, TERM, KILL)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while ((!fake.nothingAlive() || !leftovers().isEmpty()) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(fake.nothingAlive()).as("execution process groups gone").isTrue();
        assertThat(leftovers()).as("no process mentions the test directory or carries its fake state").isEmpty();
        // no file lost: every evidence entry run.json names is on disk
        for (JsonNode e : m.path("evidence")) {
            assertThat(run.resolve(e.path("file").asText())).as(out).isRegularFile();
        }
        CommandResult smi = fake.host().run(List.of("npu-smi", "info"), Map.of("FAKE_NPU_SMI_SLEEP", "0"), java.time.Duration.ofSeconds(20));
        assertThat(NpuSmiInfoParser.processes(smi.stdoutText())).as("the fake devices were released").isEmpty();
    }

    /**
     * issue 14: a collector killed (SIGKILL, no hook runs) left status running; resume then said
     * complete with no ready / load / after samples, and a second resume exported again. Now resume
     * redoes only what the journal does not record done, is complete only when every planned phase
     * is, loses no evidence file named before the kill, and a second resume changes nothing.
     */
    @ParameterizedTest(name = "SIGKILL during {0}, then resume")
    @CsvSource({"baseline,INCOMPLETE", "ready,INCOMPLETE", "load,INCOMPLETE", "after,INCOMPLETE", "stop,COMPLETE",
        "export,COMPLETE"})
    void resumeAfterSigkillNeverCompletesWithAPhaseMissing(String phase, Collector.Outcome expected) throws Exception {
        Path model = tmp.resolve("model");
        Files.createDirectories(model);
        Files.writeString(model.resolve("config.json"), "{\"hidden_size\": 8}\n");
        Path run = tmp.resolve("run");
        List<String> args = new ArrayList<>(List.of("--devices", "0", "--port", Integer.toString(FakeAscend.freePort())));
        args.addAll(slowAt(phase));
        args.addAll(List.of("--", "vllm", "serve", model.toString()));
        collector = startCollector(run, args);
        waitForPhase(run, phase);
        Thread.sleep(300);
        new ProcessBuilder("kill", "-KILL", Long.toString(collector.pid())).start().waitFor();
        assertThat(collector.waitFor(60, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (!fake.nothingAlive() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        io.hbmledger.run.RunManifest killed = io.hbmledger.run.RunDirectory.open(run).manifest();
        assertThat(killed.status()).isEqualTo("running");
        Map<String, byte[]> before = new LinkedHashMap<>();
        for (io.hbmledger.run.RunManifest.EvidenceEntry e : killed.evidence()) {
            before.put(e.file(), Files.readAllBytes(run.resolve(e.file())));
        }
        fake.env.remove("FAKE_MSPROF_EXPORT_HANG");
        fake.env.remove("FAKE_NPU_SMI_SLEEP");

        Collector.Outcome o = fake.collector(FakeAscend.fast()).resume(run, null);

        io.hbmledger.run.RunManifest m = io.hbmledger.run.RunDirectory.open(run).manifest();
        assertThat(o).as(fake.output() + m.incompleteReasons()).isEqualTo(expected);
        assertThat(m.status()).isEqualTo(expected == Collector.Outcome.COMPLETE ? "complete" : "incomplete");
        List<String> planned = RunJournal.load(run).phasesPlanned();
        List<String> done = RunJournal.load(run).phasesDone();
        if (expected == Collector.Outcome.COMPLETE) {
            assertThat(done).containsExactlyInAnyOrderElementsOf(planned);
            assertThat(m.evidence().stream().map(io.hbmledger.run.RunManifest.EvidenceEntry::file))
                    .contains("execution/msprof/PROF_000001_fake/device_0/summary/npu_mem_device_0.csv", "model/config.json");
        } else if (phase.equals("baseline")) {
            assertThat(m.incompleteReasons()).anyMatch(r -> r.contains("stopped in phase baseline, before a server was started"));
        } else {
            assertThat(done).doesNotContain(phase);
            assertThat(m.incompleteReasons()).anyMatch(r -> r.startsWith("phase " + phase + " was not finished"));
        }
        // no evidence lost: every file named before the kill is still named, byte for byte
        for (Map.Entry<String, byte[]> e : before.entrySet()) {
            assertThat(m.evidence()).anyMatch(x -> x.file().equals(e.getKey()));
            assertThat(Files.readAllBytes(run.resolve(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
        }

        // a second resume redoes nothing: run.json unchanged, no second export
        byte[] json = Files.readAllBytes(run.resolve("run.json"));
        Collector.Outcome again = fake.collector(FakeAscend.fast()).resume(run, null);
        assertThat(again).isEqualTo(expected);
        assertThat(Files.readAllBytes(run.resolve("run.json"))).isEqualTo(json);
    }

    Process startCollector(Path run, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "collect",
                "--state-dir", fake.state.toString(), "--out", run.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(fake.env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(tmp.resolve("collect.out").toFile());
        return pb.start();
    }

    @Test
    void ctrlCOfAnAttachedCollectionNeverStopsTheExecution() throws Exception {
        int port = FakeAscend.freePort();
        fake.env.put("FAKE_TOKEN_DELAY", "1");
        Executions ex = fake.executions(fake.host());
        ExecutionSpec es = ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "--port", Integer.toString(port)), null,
                List.of(0), Map.of(), null, tmp.toString());
        ExecutionRecord rec = ex.awaitReady(ex.start(es, "exec-keep", "exec start"),
                new ServerClient(fake.host().reach(port), null), java.time.Duration.ofSeconds(20));
        Path run = tmp.resolve("run");
        collector = startCollector(run, List.of("--attach", rec.id(), "--ready-samples", "1", "--requests", "2",
                "--output-tokens", "60", "--load-interval", "0.2"));
        waitForPhase(run, "load");
        Thread.sleep(300);
        new ProcessBuilder("kill", "-INT", Long.toString(collector.pid())).start().waitFor();
        assertThat(collector.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(collector.exitValue()).isNotZero();
        JsonNode m = new ObjectMapper().readTree(run.resolve("run.json").toFile());
        assertThat(m.path("phase").asText()).isEqualTo("load");
        assertThat(m.path("status").asText()).isEqualTo("failed");
        assertThat(m.path("mode").asText()).isEqualTo("attach");
        assertThat(ex.alive(rec)).as("the attached execution is still running").isTrue();
        String out = Files.readString(tmp.resolve("collect.out"));
        assertThat(out).contains("execution exec-keep is left running (attach never stops it)",
                "to continue, stop it: hbm-ledger exec stop exec-keep --state-dir " + fake.state,
                "then: hbm-ledger collect --resume " + run + " --execution exec-keep --state-dir " + fake.state);
        assertThat(new ServerClient(fake.host().reach(port), null).answers("/health", java.time.Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void aSecondCollectorProcessOnTheSameDeviceRefusesNamingTheFirst() throws Exception {
        Path first = tmp.resolve("first");
        collector = startCollector(first, List.of("--devices", "0,1", "--port", Integer.toString(FakeAscend.freePort()),
                "--baseline-samples", "200", "--sample-interval", "0.2", "--", "vllm", "serve", "m", "-tp", "2"));
        waitForPhase(first, "baseline");
        Path second = tmp.resolve("second");
        Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(second, ExecutionSpec.fromCommand(
                List.of("vllm", "serve", "m", "--port", Integer.toString(FakeAscend.freePort())), null, List.of(1), Map.of(), null,
                tmp.toString()));
        assertThat(o).isEqualTo(Collector.Outcome.REFUSED);
        // the run's id is its folder's name and 8 random hex digits (RunJournal.newRunId)
        assertThat(fake.output()).containsPattern(java.util.regex.Pattern.quote("device 1 on local is already being collected by"
                + " collection run-first-") + "[0-9a-f]{8}" + java.util.regex.Pattern.quote(" (pid " + collector.pid()
                + ", run directory " + first + ")"));
        assertThat(collector.isAlive()).as("the first collection goes on").isTrue();
        new ProcessBuilder("kill", "-INT", Long.toString(collector.pid())).start().waitFor();
        assertThat(collector.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRunInterruptedDuringExportIsFinishedByResume() throws Exception {
        Path model = tmp.resolve("model");
        Files.createDirectories(model);
        Files.writeString(model.resolve("config.json"), "{\"hidden_size\": 8}\n");
        fake.env.put("FAKE_MSPROF_EXPORT_HANG", "1");
        Path run = tmp.resolve("run");
        collector = startCollector(run, List.of("--devices", "0", "--port", Integer.toString(FakeAscend.freePort()),
                "--baseline-samples", "1", "--ready-samples", "1", "--after-samples", "1", "--requests", "2",
                "--output-tokens", "4", "--stop-timeout", "5", "--", "vllm", "serve", model.toString()));
        waitForPhase(run, "export");
        new ProcessBuilder("kill", "-INT", Long.toString(collector.pid())).start().waitFor();
        assertThat(collector.waitFor(60, TimeUnit.SECONDS)).isTrue();
        JsonNode before = new ObjectMapper().readTree(run.resolve("run.json").toFile());
        assertThat(before.path("status").asText()).isEqualTo("failed");
        assertThat(before.path("phase").asText()).isEqualTo("export");

        fake.env.remove("FAKE_MSPROF_EXPORT_HANG");
        Collector.Outcome o = fake.collector(FakeAscend.fast()).resume(run, before.path("execution_id").asText());

        io.hbmledger.run.RunManifest m = io.hbmledger.run.RunDirectory.open(run).manifest();
        assertThat(o).as(fake.output() + m.incompleteReasons()).isEqualTo(Collector.Outcome.COMPLETE);
        assertThat(m.status()).isEqualTo("complete");
        assertThat(m.evidence().stream().map(io.hbmledger.run.RunManifest.EvidenceEntry::file))
                .contains("npu-smi/baseline-001.txt", "npu-smi/ready-001.txt", "npu-smi/after-001.txt", "model/config.json",
                        "execution/msprof/PROF_000001_fake/device_0/summary/npu_mem_device_0.csv");
    }

    void waitForPhase(Path run, String phase) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String seen = null;
        while (System.nanoTime() < deadline) {
            Path f = run.resolve("run.json");
            if (Files.exists(f)) {
                try {
                    seen = new ObjectMapper().readTree(f.toFile()).path("phase").asText();
                } catch (IOException partial) {
                    seen = null;   // cannot happen with atomic writes; retried anyway
                }
                if (phase.equals(seen)) {
                    return;
                }
            }
            if (!collector.isAlive()) {
                throw new AssertionError("collector exited before phase " + phase + " (last phase " + seen + "): "
                        + Files.readString(tmp.resolve("collect.out")));
            }
            Thread.sleep(50);
        }
        throw new AssertionError("phase " + phase + " not reached in 60 s (last phase " + seen + ")");
    }

    /**
     * Processes (other than this JVM) whose command line mentions the test directory or whose
     * environment carries this test's fake device state (every fake npu-smi, msprof, vllm and their
     * children, e.g. the {@code sleep 600} of a hung export, which names no path).
     */
    List<Long> leftovers() throws IOException {
        List<Long> out = new ArrayList<>();
        String needle = tmp.toString();
        byte[] marker = ("FAKE_NPU_STATE=" + fake.env.get("FAKE_NPU_STATE") + "\0").getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path d : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmdline = new String(Files.readAllBytes(d.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
                    long pid = Long.parseLong(d.getFileName().toString());
                    String stat = Files.readString(d.resolve("stat"));
                    boolean zombie = stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
                    boolean marked = cmdline.contains(needle) || contains(Files.readAllBytes(d.resolve("environ")), marker);
                    if (pid != self && !zombie && marked) {
                        out.add(pid);
                    }
                } catch (IOException | RuntimeException gone) {
                    // ended while we looked
                }
            }
        }
        return out;
    }

    static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

}

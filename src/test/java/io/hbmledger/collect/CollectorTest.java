package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.evidence.npusmi.NpuSmiProcess;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import io.hbmledger.run.RunManifest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Collections against the fake Ascend host (test doubles in src/test/resources/collect/fakebin). */
class CollectorTest {

    static final String SECRET = "sk-test-0123456789";

    @TempDir
    Path tmp;
    FakeAscend fake;
    int port;

    @BeforeEach
    void setUp() throws Exception {
        fake = new FakeAscend(tmp);
        port = FakeAscend.freePort();
    }

    @AfterEach
    void tearDown() throws Exception {
        fake.close();
    }

    /** A model directory whose name has spaces, quotes, $() and ;, with config.json and one safetensors file. */
    Path model() throws Exception {
        Path m = tmp.resolve("my model's \"dir\" $(touch pwned); x");
        Files.createDirectories(m);
        Files.writeString(m.resolve("config.json"), "{\"hidden_size\": 8, \"num_hidden_layers\": 2}\n");
        // header by hand: one F16 tensor of shape [2,2] = 8 bytes at offsets 0..8
        byte[] header = "{\"w\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}".getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length).put(header).put(new byte[8]);
        Files.write(m.resolve("model.safetensors"), b.array());
        return m;
    }

    ExecutionSpec spec(Path model, List<Integer> devices) {
        // one rank per device: collect refuses devices the server would leave idle
        return ExecutionSpec.fromCommand(List.of("vllm", "serve", model.toString(), "--api-key", SECRET, "--port",
                Integer.toString(port), "-tp", Integer.toString(devices.size())), null, devices, Map.of(), null, tmp.toString());
    }

    static List<String> moments(RunManifest m, String moment) {
        return m.evidence().stream().filter(e -> moment.equals(e.moment())).map(EvidenceEntry::file).toList();
    }

    static void assertNoSecretIn(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(SECRET);
            }
        }
    }

    @Test
    void standaloneTakesEveryPhaseAndStopsTheServer() throws Exception {
        Path model = model();
        Path args = tmp.resolve("args.json");
        fake.env.put("FAKE_ARGS_FILE", args.toString());
        Path run = tmp.resolve("run");

        Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(run, spec(model, List.of(0, 1)));

        assertThat(o).as(fake.output()).isEqualTo(Collector.Outcome.COMPLETE);
        RunManifest m = RunDirectory.open(run).manifest();   // also checks every path stays inside the run
        assertThat(m.status()).isEqualTo("complete");
        assertThat(m.phase()).isEqualTo("done");
        assertThat(m.mode()).isEqualTo("standalone");
        assertThat(m.incompleteReasons()).isEmpty();
        assertThat(m.deployment().devices()).containsExactly(0, 1);
        assertThat(m.deployment().modelDir()).isEqualTo("model");
        assertThat(m.moments().keySet()).containsSubsequence("baseline", "start", "ready", "load_start", "load_end", "after",
                "stop", "export", "copy");
        // fast(): 2 baseline, 1 ready, >= 1 load, 1 after
        assertThat(moments(m, "baseline")).containsExactly("npu-smi/baseline-001.txt", "npu-smi/baseline-002.txt");
        assertThat(moments(m, "ready")).containsExactly("npu-smi/ready-001.txt");
        assertThat(moments(m, "load")).isNotEmpty().allMatch(f -> f.startsWith("npu-smi/load-"));
        assertThat(moments(m, "after")).containsExactly("npu-smi/after-001.txt");
        assertThat(moments(m, "startup")).containsExactly("execution/server.log");
        assertThat(moments(m, "static")).containsExactly("model/config.json", "model/weights-manifest.json");
        // the fake msprof exports one npu_mem CSV per device directory it made (ASCEND_RT_VISIBLE_DEVICES=0,1)
        assertThat(m.evidence().stream().map(EvidenceEntry::file).filter(f -> f.endsWith(".csv")))
                .containsExactly("execution/msprof/PROF_000001_fake/device_0/summary/npu_mem_device_0.csv",
                        "execution/msprof/PROF_000001_fake/device_1/summary/npu_mem_device_1.csv");

        // raw evidence kept byte for byte: baseline shows the idle devices, ready shows the server's worker
        String baseline = Files.readString(run.resolve("npu-smi/baseline-001.txt"));
        assertThat(NpuSmiInfoParser.processes(baseline)).isEmpty();
        List<NpuSmiProcess> ready = NpuSmiInfoParser.processes(Files.readString(run.resolve("npu-smi/ready-001.txt")));
        assertThat(ready).extracting(NpuSmiProcess::device).containsExactlyInAnyOrder(0, 1);
        assertThat(m.deployment().serverPids()).contains(ready.get(0).pid());
        // header saved exactly; the 8 weight bytes are not
        assertThat(Files.readString(run.resolve("model/safetensors-headers/model.safetensors.header.json")))
                .isEqualTo("{\"w\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}");
        // the manifest (docs/readme-weights.md format): the header above is 56 bytes (counted by hand);
        // file size = 8 length bytes + 56 + 8 data bytes
        com.fasterxml.jackson.databind.JsonNode wm = new ObjectMapper().readTree(run.resolve("model/weights-manifest.json").toFile());
        assertThat(wm.path("schema").asText()).isEqualTo("hbm-ledger/weights-manifest/1");
        assertThat(wm.path("config").path("hidden_size").asInt()).isEqualTo(8);
        com.fasterxml.jackson.databind.JsonNode file = wm.path("files").get(0);
        assertThat(file.path("name").asText()).isEqualTo("model.safetensors");
        assertThat(file.path("header_bytes").asLong()).isEqualTo(56);
        assertThat(file.path("size").asLong()).isEqualTo(8 + 56 + 8);
        assertThat(file.path("tensors").toString())
                .isEqualTo("[{\"name\":\"w\",\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}]");

        // the server got the path and the key literally; the run holds no trace of the key
        @SuppressWarnings("unchecked")
        List<String> got = new ObjectMapper().readValue(args.toFile(), List.class);
        assertThat(got).containsExactly("serve", model.toString(), "--api-key", SECRET, "--port", Integer.toString(port), "-tp", "2");
        assertThat(tmp.resolve("pwned")).doesNotExist();
        assertNoSecretIn(run);
        assertThat(Files.readString(run.resolve("execution/server.log"))).contains("VLLM_LOGGING_LEVEL=DEBUG", "Bearer ***");

        // stopped by SIGINT, devices released, nothing left running
        assertThat(m.deployment().extra().get("stop").toString()).contains("SIGINT", "npu-smi lists none");
        assertThat(fake.nothingAlive()).isTrue();
        ExecutionRecord rec = fake.store().get(m.executionId());
        assertThat(rec.state()).isEqualTo("stopped");
        assertThat(rec.command()).contains("***").doesNotContain(SECRET);
        assertThat(rec.command().subList(0, 4)).containsExactly("msprof", "--output=" + rec.runtimeDir() + "/msprof",
                "--sys-hardware-mem=on", "--sys-hardware-mem-freq=50");
    }

    @Test
    void noCsvAfterExportMakesTheRunIncomplete() throws Exception {
        fake.env.put("FAKE_MSPROF_NO_CSV", "1");
        Path run = tmp.resolve("run");
        Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(run, spec(model(), List.of(2)));
        assertThat(o).isEqualTo(Collector.Outcome.INCOMPLETE);
        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(m.status()).isEqualTo("incomplete");
        assertThat(m.incompleteReasons()).singleElement().asString().startsWith("no msprof CSV after export");
        assertThat(moments(m, "after")).hasSize(1);
        assertThat(fake.nothingAlive()).isTrue();
    }

    @Test
    void withoutMsprofTheRunSaysSoAndNoExportRuns() throws Exception {
        fake.env.put("FAKE_MSPROF_EXPORT_HANG", "1");   // an export attempt would show as a timeout reason
        CollectSettings f = FakeAscend.fast();
        CollectSettings s = new CollectSettings(1, 1, 1, f.sampleInterval(), f.loadInterval(), f.npuSmiTimeout(),
                f.readyTimeout(), f.exportTimeout(), f.copyTimeout(), null, f.stop(), f.workload(), null);
        Path run = tmp.resolve("run");
        Collector.Outcome o = fake.collector(s).standalone(run, spec(model(), List.of(0)));
        assertThat(o).isEqualTo(Collector.Outcome.INCOMPLETE);
        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(m.incompleteReasons()).containsExactly("collected without msprof (--no-msprof): no hardware-memory evidence");
        assertThat(m.moments()).doesNotContainKey("export");
        assertThat(fake.store().get(m.executionId()).command().get(0)).isEqualTo("vllm");
    }

    @Test
    void aHostWithoutMsprofIsRefusedUnlessAskedToGoWithout() throws Exception {
        Path bin = tmp.resolve("bin");
        Files.createDirectories(bin);
        for (String tool : List.of("npu-smi", "vllm")) {
            Files.copy(FakeAscend.BIN.resolve(tool), bin.resolve(tool));
            assertThat(bin.resolve(tool).toFile().setExecutable(true)).isTrue();
        }
        fake.env.put("PATH", bin + ":/usr/local/bin:/usr/bin:/bin");
        Path run = tmp.resolve("run");
        Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(run, spec(model(), List.of(0)));
        assertThat(o).isEqualTo(Collector.Outcome.REFUSED);
        assertThat(fake.output()).contains("msprof is not on PATH of local", "--no-msprof");
        assertThat(fake.store().list()).isEmpty();
    }

    @Test
    void aHungExportIsKilledAndRecordedAsMissing() throws Exception {
        fake.env.put("FAKE_MSPROF_EXPORT_HANG", "1");
        CollectSettings f = FakeAscend.fast();
        CollectSettings s = new CollectSettings(1, 1, 1, f.sampleInterval(), f.loadInterval(), f.npuSmiTimeout(),
                f.readyTimeout(), Duration.ofSeconds(1), f.copyTimeout(), 50, f.stop(), f.workload(), null);
        Path run = tmp.resolve("run");
        Collector.Outcome o = fake.collector(s).standalone(run, spec(model(), List.of(0)));
        assertThat(o).isEqualTo(Collector.Outcome.INCOMPLETE);
        assertThat(RunDirectory.open(run).manifest().incompleteReasons()).contains(
                "msprof --export did not finish within 1 s and was killed: msprof evidence missing");
    }

    @Test
    void aHungNpuSmiIsTimedOutAndItsSamplesAreMissing() throws Exception {
        // calls 1 (preflight) and 2 (baseline) answer; every later call hangs
        fake.env.put("FAKE_NPU_SMI_CALLS", tmp.resolve("calls").toString());
        fake.env.put("FAKE_NPU_SMI_HANG_AFTER", "2");
        CollectSettings f = FakeAscend.fast();
        CollectSettings s = new CollectSettings(1, 1, 1, f.sampleInterval(), Duration.ofSeconds(5), Duration.ofSeconds(1),
                f.readyTimeout(), f.exportTimeout(), f.copyTimeout(), 50,
                new Executions.StopTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(1)),
                f.workload(), null);
        Path run = tmp.resolve("run");
        Collector.Outcome o = fake.collector(s).standalone(run, spec(model(), List.of(0)));
        assertThat(o).isEqualTo(Collector.Outcome.INCOMPLETE);
        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(moments(m, "baseline")).containsExactly("npu-smi/baseline-001.txt");
        assertThat(moments(m, "ready")).isEmpty();
        assertThat(m.incompleteReasons()).contains(
                "npu-smi did not answer within 1 s (ready sample 1): that sample is missing",
                "npu-smi did not answer within 1 s (after sample 1): that sample is missing");
        assertThat(fake.nothingAlive()).isTrue();
    }

    @Test
    void aSecondCollectionOnTheSameDevicesRefusesNamingTheFirst() throws Exception {
        try (DeviceLocks first = DeviceLocks.acquire(fake.state, "local", List.of(1), "collection run-first (pid 4242)")) {
            Path run = tmp.resolve("run");
            Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(run, spec(model(), List.of(0, 1)));
            assertThat(o).isEqualTo(Collector.Outcome.REFUSED);
            assertThat(fake.output()).contains("device 1 on local is already being collected by collection run-first (pid 4242)");
            // a refusal leaves no run directory that would block a retry with the same --out
            assertThat(run).doesNotExist();
            assertThat(fake.store().list()).isEmpty();   // nothing was started
        }
        // the lock of device 0 taken by the refused run was given back
        try (DeviceLocks again = DeviceLocks.acquire(fake.state, "local", List.of(0), "x")) {
            assertThat(again).isNotNull();
        }
    }

    @Test
    void busyDevicesAreRefusedBeforeAnythingStarts() throws Exception {
        // another (live) process holding device 3, as the fake npu-smi lists only live pids
        Process other = new ProcessBuilder("sleep", "60").start();
        try {
            Path npu = tmp.resolve("npu");
            Files.createDirectories(npu);
            Files.writeString(npu.resolve("proc-3-1"), "3 " + other.pid() + " python3 4096\n");
            Path run = tmp.resolve("run");
            Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(run, spec(model(), List.of(3)));
            assertThat(o).isEqualTo(Collector.Outcome.REFUSED);
            assertThat(fake.output()).contains("device 3: pid " + other.pid() + " python3 (4096 MB)");
            assertThat(fake.store().list()).isEmpty();
            // an --out the user made beforehand is kept, only without run.json
            Path own = Files.createDirectories(tmp.resolve("own"));
            assertThat(fake.collector(FakeAscend.fast()).standalone(own, spec(model(), List.of(3)))).isEqualTo(Collector.Outcome.REFUSED);
            assertThat(own).isEmptyDirectory();
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void aPipelineParallelRunRecordsPpSoThatAnalyzeCountsItsRanks() throws Exception {
        // TP 1 x PP 2 runs two ranks on devices 0 and 1; without "pp" in run.json analyze would count
        // one rank and refuse the second device
        Path run = tmp.resolve("run");
        ExecutionSpec es = ExecutionSpec.fromCommand(List.of("vllm", "serve", model().toString(), "--api-key", SECRET, "--port",
                Integer.toString(port), "-pp", "2"), null, List.of(0, 1), Map.of(), null, tmp.toString());
        Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(run, es);
        assertThat(o).as(fake.output()).isEqualTo(Collector.Outcome.COMPLETE);
        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(m.deployment().pp()).isEqualTo(2);
        assertThat(m.deployment().tp()).isEqualTo(1);
        assertThat(m.deployment().devices()).containsExactly(0, 1);
    }

    @Test
    void aServerThatDiesWhileStartingFailsFastWithItsLog() throws Exception {
        fake.env.put("FAKE_DIE_ON_START", "1");
        Path run = tmp.resolve("run");
        Collector.Outcome o = fake.collector(FakeAscend.fast()).standalone(run, spec(model(), List.of(0)));
        assertThat(o).isEqualTo(Collector.Outcome.FAILED);
        // fail fast: the death is seen, not the 20 s readiness timeout ("not ready after 20 s")
        assertThat(fake.output()).contains("exited while starting", "NPU out of memory").doesNotContain("not ready after");
        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(m.status()).isEqualTo("failed");
        assertThat(moments(m, "oom")).containsExactly("execution/server.log");
        // the reason carries the log's error line, not a dangling "last lines of ...:"
        assertThat(m.incompleteReasons().get(0)).startsWith("server failed to start: execution ")
                .contains("the log says: ERROR fake-vllm: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB")
                .doesNotEndWith(":");
        assertThat(fake.nothingAlive()).isTrue();

        // a death that is not an out-of-memory is a start-up log, not "oom"
        fake.env.put("FAKE_DIE_ON_START", "runtime");
        Path run2 = tmp.resolve("run2");
        assertThat(fake.collector(FakeAscend.fast()).standalone(run2, spec(model(), List.of(0)))).isEqualTo(Collector.Outcome.FAILED);
        RunManifest m2 = RunDirectory.open(run2).manifest();
        assertThat(moments(m2, "oom")).isEmpty();
        assertThat(moments(m2, "startup")).containsExactly("execution/server.log");
        assertThat(m2.incompleteReasons().get(0)).contains("RuntimeError: Engine core initialization failed");
    }

    @Test
    void attachLeavesTheExecutionRunningAndResumeAddsMsprofOnlyForTheSameId() throws Exception {
        Host host = fake.host();
        Executions ex = fake.executions(host);
        ExecutionSpec es = ExecutionSpec.fromCommand(List.of("vllm", "serve", model().toString(), "--api-key", SECRET,
                "--port", Integer.toString(port), "-tp", "2"), null, List.of(0, 1), Map.of(), 50, tmp.toString());
        ExecutionRecord rec = ex.awaitReady(ex.start(es, "exec-attach-test", "exec start"),
                new ServerClient(host.reach(port), SECRET), Duration.ofSeconds(20));
        Path run = tmp.resolve("run");

        // without the key the server answers 401: refused at once with a hint, and no run left behind
        assertThat(fake.collector(FakeAscend.fast()).attach(run, rec.id())).isEqualTo(Collector.Outcome.REFUSED);
        assertThat(fake.output()).contains("/v1/models answers 401 Unauthorized", "--api-key-env").doesNotContain("wait until");
        assertThat(run).doesNotExist();

        CollectSettings fs = FakeAscend.fast();
        Collector.Outcome o = fake.collector(new CollectSettings(fs.baselineSamples(), fs.readySamples(), fs.afterSamples(),
                fs.sampleInterval(), fs.loadInterval(), fs.npuSmiTimeout(), fs.readyTimeout(), fs.exportTimeout(), fs.copyTimeout(),
                fs.msprofHz(), fs.stop(), fs.workload(), SECRET)).attach(run, rec.id());

        assertThat(o).as(fake.output()).isEqualTo(Collector.Outcome.INCOMPLETE);
        assertThat(ex.alive(rec)).isTrue();
        RunManifest m1 = RunDirectory.open(run).manifest();
        assertThat(m1.mode()).isEqualTo("attach");
        assertThat(m1.executionId()).isEqualTo("exec-attach-test");
        assertThat(moments(m1, "baseline")).isEmpty();
        assertThat(moments(m1, "ready")).containsExactly("npu-smi/ready-001.txt");
        assertThat(m1.incompleteReasons()).anyMatch(r -> r.startsWith("msprof export pending"));
        List<byte[]> samplesBefore = new ArrayList<>();
        for (EvidenceEntry e : m1.evidence()) {
            if (e.file().startsWith("npu-smi/")) {
                samplesBefore.add(Files.readAllBytes(run.resolve(e.file())));
            }
        }

        // resume refuses while the execution runs
        assertThatThrownBy(() -> fake.collector(FakeAscend.fast()).resume(run, null))
                .hasMessageContaining("still running");
        ex.stop(rec, FakeAscend.fast().stop(), null);
        // and refuses another execution id
        assertThatThrownBy(() -> fake.collector(FakeAscend.fast()).resume(run, "exec-someone-else"))
                .hasMessageContaining("measured execution exec-attach-test, not exec-someone-else");
        assertThat(RunDirectory.open(run).manifest()).isEqualTo(m1);

        Collector.Outcome o2 = fake.collector(FakeAscend.fast()).resume(run, "exec-attach-test");

        RunManifest m2 = RunDirectory.open(run).manifest();
        assertThat(o2).as(fake.output()).isEqualTo(Collector.Outcome.INCOMPLETE);
        assertThat(m2.mode()).isEqualTo("resume");
        assertThat(m2.incompleteReasons()).noneMatch(r -> r.startsWith("msprof export pending"))
                .containsExactly("attached to a running execution: no idle baseline was taken by this run");
        assertThat(m2.evidence().stream().map(EvidenceEntry::file).filter(f -> f.endsWith(".csv"))).hasSize(2);
        // every earlier entry is still there, and every sample file is unchanged
        assertThat(m2.evidence()).containsAll(m1.evidence().stream().filter(e -> e.file().startsWith("npu-smi/")).toList());
        List<byte[]> samplesAfter = new ArrayList<>();
        for (EvidenceEntry e : m1.evidence()) {
            if (e.file().startsWith("npu-smi/")) {
                samplesAfter.add(Files.readAllBytes(run.resolve(e.file())));
            }
        }
        assertThat(samplesAfter).containsExactlyElementsOf(samplesBefore);
        assertThat(m2.moments()).containsKeys("ready", "load_start", "after", "stop", "export");
        // the literal key was never stored, yet the copied log holds none of it
        assertThat(Files.readString(run.resolve("execution/server.log"))).contains("fake-vllm args=");
        assertNoSecretIn(run);
        assertNoSecretIn(fake.state.resolve("exec-attach-test").resolve(ExecutionRecord.FILE));
    }
}

package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.evidence.npusmi.NpuSmiProcess;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import io.hbmledger.run.RunManifest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Collection against the project's simulated Ascend host (sim/bin: npu-smi, msprof and vllm
 * SIMULATORS sharing one device state), reached through PATH exactly as on a real host.
 */
class SimCollectTest {

    static final Path SIM_BIN = Path.of("sim/bin").toAbsolutePath();
    static final String KEY = "sk-sim-secret-4711";

    @TempDir
    Path tmp;
    FakeAscend host;   // only its state dir, env map and process-group clean-up are used

    @BeforeEach
    void setUp() throws Exception {
        host = new FakeAscend(tmp);
        host.onSimulatedHost(tmp.resolve("sim"));
    }

    @AfterEach
    void tearDown() throws Exception {
        host.close();
    }

    CollectSettings settings() {
        CollectSettings f = FakeAscend.fast();
        return new CollectSettings(2, 1, 1, f.sampleInterval(), Duration.ofMillis(300), Duration.ofSeconds(30),
                Duration.ofSeconds(90), Duration.ofSeconds(60), f.copyTimeout(), 50,
                new Executions.StopTimeouts(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(20)),
                new Workload.Spec("completions", 4, 2, 64, 16, Duration.ofSeconds(30), Duration.ofSeconds(60)), null);
    }

    /**
     * An execution started at INFO (as 'exec start --env VLLM_LOGGING_LEVEL=INFO' does, or a server
     * someone started by hand): the simulated vLLM then prints no DEBUG memory split, and the
     * attached run says which figures that leaves out and how to get them.
     */
    @Test
    void attachToAServerAtInfoNamesTheMissingDebugFigures() throws Exception {
        int port = FakeAscend.freePort();
        Host h = host.host();
        Executions ex = host.executions(h);
        ExecutionSpec spec = ExecutionSpec.fromCommand(List.of("vllm", "serve", "my-llama", "--tensor-parallel-size", "2",
                "--port", Integer.toString(port)), null, List.of(0, 1), Map.of("VLLM_LOGGING_LEVEL", "INFO"), null, tmp.toString());
        ExecutionRecord rec = ex.awaitReady(ex.start(spec, "exec-info", "test"), new ServerClient(h.reach(port), null),
                Duration.ofSeconds(90));
        Path run = tmp.resolve("run");

        Collector.Outcome o = host.collector(settings()).attach(run, rec.id());

        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(o).as(host.output() + m.incompleteReasons()).isEqualTo(Collector.Outcome.INCOMPLETE);
        assertThat(Files.readString(run.resolve("execution/server.log"))).contains("Available KV cache memory")
                .doesNotContain("Memory profiling takes");
        assertThat(m.incompleteReasons()).anySatisfy(r -> assertThat(r)
                .contains("no DEBUG records", "no activation peak, non-torch memory",
                        "restart the server with VLLM_LOGGING_LEVEL=DEBUG"));
        assertThat(host.output()).contains("restart the server with VLLM_LOGGING_LEVEL=DEBUG");
        ex.stop(rec, settings().stop(), null);
    }

    @Test
    void standaloneOnTheSimulatedHostIsCompleteAndHoldsNoSecret() throws Exception {
        int port = FakeAscend.freePort();
        Path run = tmp.resolve("run");
        ExecutionSpec spec = ExecutionSpec.fromCommand(List.of("vllm", "serve", "my-llama", "--tensor-parallel-size", "2",
                "--api-key", KEY, "--port", Integer.toString(port)), null, List.of(2, 3), Map.of(), null, tmp.toString());

        Collector.Outcome o = host.collector(settings()).standalone(run, spec);

        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(o).as(host.output() + m.incompleteReasons()).isEqualTo(Collector.Outcome.INCOMPLETE);
        // a bare model name has no config.json or safetensors headers to save: the one reason
        assertThat(m.incompleteReasons()).singleElement().asString().startsWith("no config.json or *.safetensors in 'my-llama'");
        assertThat(m.deployment().tp()).isEqualTo(2);
        assertThat(m.deployment().devices()).containsExactly(2, 3);
        // the simulated npu-smi: idle at baseline, the server's memory on NPUs 2 and 3 once ready
        assertThat(NpuSmiInfoParser.processes(Files.readString(run.resolve("npu-smi/baseline-001.txt")))).isEmpty();
        assertThat(NpuSmiInfoParser.processes(Files.readString(run.resolve("npu-smi/ready-001.txt"))))
                .extracting(NpuSmiProcess::device).contains(2, 3).doesNotContain(0, 1);
        // DEBUG level reached the server: V1's memory split is in the copied log
        String log = Files.readString(run.resolve("execution/server.log"));
        assertThat(log).contains("Memory profiling takes", "Available KV cache memory");
        // msprof exported after the stop, into the execution's own runtime directory
        List<String> csv = m.evidence().stream().map(EvidenceEntry::file).filter(f -> f.endsWith(".csv")).toList();
        assertThat(csv).anyMatch(f -> f.matches("execution/msprof/PROF_[^/]+/mindstudio_profiler_output/npu_mem_\\d+\\.csv"))
                .anyMatch(f -> f.contains("/npu_module_mem_"));
        // the simulator prints its arguments with the key in clear; the run must not
        try (Stream<Path> files = Files.walk(run)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(KEY);
            }
        }
        assertThat(m.deployment().extra().get("stop").toString()).contains("stopped after SIGINT", "npu-smi lists none");
        assertThat(host.nothingAlive()).isTrue();

        // the ledger of the collected run
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cl = io.hbmledger.cli.Main.newCommandLine();
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        int rc = cl.execute("analyze", "--format", "json", run.toString());
        org.junit.jupiter.api.Assumptions.assumeFalse(err.toString().contains("npu_mem_") && err.toString().contains("format not recognised"),
                "the msprof reader has not landed on this branch yet: analyze cannot read the run's msprof CSVs");
        assertThat(rc).as(err.toString()).isZero();
        com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(run.resolve("report.json").toFile());
        assertThat(report.path("schema").asText()).isEqualTo("hbm-ledger/report/1");
        assertThat(report.path("devices")).hasSize(2);
        for (com.fasterxml.jackson.databind.JsonNode d : report.path("devices")) {
            assertThat(d.path("used_bytes").isNull()).as("used bytes from the npu-smi sample").isFalse();
            assertThat(d.path("entries").toString()).contains("\"weights\"", "\"kv_cache\"");
        }
    }
}

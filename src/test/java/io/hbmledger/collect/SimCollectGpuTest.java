package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.cli.Main;
import io.hbmledger.evidence.nvidiasmi.NvidiaSmiCsvParser;
import io.hbmledger.evidence.nvidiasmi.NvidiaSmiProcess;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import java.io.PrintWriter;
import java.io.StringWriter;
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
 * Collect-then-analyze against the simulated NVIDIA host (sim/bin: nvidia-smi and vllm SIMULATORS,
 * {@code hbm-sim init --gpus 4}), reached through PATH as on a real host: the run and its ledger are
 * complete without msprof, and every figure the ledger prints comes from the files collect wrote.
 */
class SimCollectGpuTest {

    static final long MIB = 1L << 20;

    @TempDir
    Path tmp;
    FakeAscend host;

    @BeforeEach
    void setUp() throws Exception {
        host = new FakeAscend(tmp);
        host.onSimulatedHost(tmp.resolve("sim"), "--gpus", "4");
    }

    @AfterEach
    void tearDown() throws Exception {
        host.close();
    }

    @Test
    void standaloneOnTheSimulatedGpuHostGivesACompleteGpuLedger() throws Exception {
        int port = FakeAscend.freePort();
        Path run = tmp.resolve("run");
        Path model = Path.of("examples/simulated-collect/model").toAbsolutePath();
        CollectSettings f = FakeAscend.fast();
        CollectSettings s = new CollectSettings(2, 1, 1, f.sampleInterval(), Duration.ofMillis(300), Duration.ofSeconds(30),
                Duration.ofSeconds(90), Duration.ofSeconds(60), f.copyTimeout(), null,
                new Executions.StopTimeouts(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(20)),
                new Workload.Spec("completions", 4, 2, 64, 16, Duration.ofSeconds(30), Duration.ofSeconds(60)), null);
        ExecutionSpec spec = ExecutionSpec.fromCommand(List.of("vllm", "serve", model.toString(), "--tensor-parallel-size", "2",
                "--port", Integer.toString(port)), null, List.of(2, 3),
                Map.of("NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS", "INIT,ENV,ALLOC"), null, tmp.toString());

        Collector.Outcome o = host.collector(s, Accelerator.NVIDIA).standalone(run, spec);

        RunManifest m = RunDirectory.open(run).manifest();
        assertThat(o).as(host.output() + m.incompleteReasons()).isEqualTo(Collector.Outcome.COMPLETE);
        assertThat(m.deployment().accelerator()).isEqualTo("nvidia");
        assertThat(m.incompleteReasons()).isEmpty();
        List<String> files = m.evidence().stream().map(EvidenceEntry::file).toList();
        assertThat(files).contains("nvidia-smi/baseline-001.csv", "nvidia-smi/ready-001.csv", "nvidia-smi/after-001.csv",
                "nvidia-smi/load-continuous.csv", "execution/server.log").noneMatch(x -> x.contains("msprof") || x.startsWith("npu-smi"));
        // CUDA_VISIBLE_DEVICES=2,3 in PCI bus order reached the server: its memory is on GPUs 2 and 3 only
        assertThat(Files.readString(run.resolve("execution/execution.json"))).contains("vllm");
        String ready = Files.readString(run.resolve("nvidia-smi/ready-001.csv"));
        List<NvidiaSmiProcess> procs = NvidiaSmiCsvParser.processes(ready);
        assertThat(procs).extracting(NvidiaSmiProcess::index).containsExactlyInAnyOrder(2, 3);
        assertThat(NvidiaSmiCsvParser.processes(Files.readString(run.resolve("nvidia-smi/baseline-001.csv")))).isEmpty();
        assertThat(Files.readString(run.resolve("execution/server.log"))).contains("Automatically detected platform cuda.",
                "Model loading took", "Graph capturing finished").doesNotContain("ascend");
        assertThat(m.deployment().extra().get("stop").toString()).contains("nvidia-smi lists none");
        assertThat(host.nothingAlive()).isTrue();

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute("analyze", "--format", "json", run.toString());
        assertThat(rc).as(err.toString() + out).isZero();
        JsonNode report = new ObjectMapper().readTree(run.resolve("report.json").toFile());
        assertThat(report.path("status").asText()).as(report.path("incomplete_reasons").toString()).isEqualTo("complete");
        assertThat(report.toString()).doesNotContain("msprof", "hccl", "cann_runtime");
        assertThat(report.path("devices")).hasSize(2);
        for (JsonNode d : report.path("devices")) {
            // used is the ready sample's memory.used of that GPU, as the CSV row says it
            int index = Integer.parseInt(d.path("device").asText().replace("gpu:", ""));
            String row = ready.lines().filter(l -> l.startsWith(index + ", GPU-")).findFirst().orElseThrow();
            long usedMib = Long.parseLong(row.split(", ")[3]);
            assertThat(d.path("used_bytes").asLong()).isEqualTo(usedMib * MIB);
            // the whole device use is the server's: its per-process figure, from --query-compute-apps
            long server = procs.stream().filter(p -> p.index() == index).mapToLong(NvidiaSmiProcess::memoryBytes).sum();
            assertThat(entry(d, "server_processes").path("bytes").asLong()).isEqualTo(server);
            assertThat(entry(d, "weights").path("confidence").asText()).isEqualTo("reported");
            assertThat(entry(d, "graph_pool").path("bytes").asLong()).isPositive();
            // NCCL's allocation lines of this rank: the simulator's 272 MiB of buffers, as NCCL reports them,
            // inside vLLM's non-torch figure
            JsonNode nccl = entry(d, "nccl");
            assertThat(nccl.path("bytes").asLong()).isEqualTo(272 * MIB);
            assertThat(nccl.path("confidence").asText()).isEqualTo("reported");
            assertThat(nccl.path("counted").asBoolean()).isFalse();
            // the serving process less vLLM's counted figures, each read back from the report
            long vllm = 0;
            for (String c : List.of("weights", "kv_cache", "graph_pool", "non_torch")) {
                vllm += entry(d, c).path("bytes").asLong();
            }
            JsonNode cuda = entry(d, "cuda_runtime");
            assertThat(cuda.path("confidence").asText()).isEqualTo("inferred");
            assertThat(cuda.path("bytes").asLong()).isEqualTo(server - vllm);
            // the simulator's CUDA context is 520 MiB; vLLM's non-torch misses part of it and its
            // figures are printed to 0.01 GiB, so the inferred line is within that context, not equal
            assertThat(cuda.path("bytes").asLong()).isBetween(0L, 520 * MIB);
            // memory.reserved of the ready row, outside used
            long reservedMib = Long.parseLong(row.split(", ")[5]);
            assertThat(entry(d, "driver_reserved").path("bytes").asLong()).isEqualTo(reservedMib * MIB);
        }
        assertThat(Files.readString(run.resolve("execution/server.log"))).contains("NCCL INFO Allocated shareable buffer",
                "NCCL INFO 2 coll channels");
    }

    private static JsonNode entry(JsonNode device, String component) {
        for (JsonNode e : device.path("entries")) {
            if (e.path("component").asText().equals(component)) {
                return e;
            }
        }
        throw new AssertionError("no " + component + " in " + device);
    }
}

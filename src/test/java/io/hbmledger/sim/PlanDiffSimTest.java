package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code plan} and {@code diff} on SIMULATED runs: the simulated vllm-ascend server (TP 2 on NPUs
 * 2 and 3 of a 910B host, the Llama-3.1-8B shape of examples/simulated-collect/model) started three
 * times: utilization 0.9, 0.8, and 0.9 with --enforce-eager; an npu-smi sample at ready each time.
 */
class PlanDiffSimTest {

    private static final String MODEL = "examples/simulated-collect/model";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static final List<SimProcess> STARTED = new ArrayList<>();
    private static Path graphs09;
    private static Path graphs08;
    private static Path eager09;

    @BeforeAll
    static void runs() throws Exception {
        graphs09 = run("a", "0.9");
        graphs08 = run("b", "0.8");
        eager09 = run("c", "0.9", "--enforce-eager");
    }

    @AfterAll
    static void killAll() throws Exception {
        for (SimProcess p : STARTED) {
            p.killGroup();
        }
    }

    private static Path run(String name, String util, String... extra) throws Exception {
        SimStateStore store = new SimStateStore(dir.resolve("host-" + name));
        store.init(SimStateStore.idleHost(4, "910B1", 65536));
        Path run = dir.resolve(name);
        Files.createDirectories(run.resolve("evidence"));
        List<String> args = new ArrayList<>(List.of("serve", Path.of(MODEL).toAbsolutePath().toString(), "--port",
                String.valueOf(VllmServerSimTest.freePort()), "--tensor-parallel-size", "2", "--gpu-memory-utilization", util,
                "--sim-home", store.home().toString(), "--sim-step-ms", "1"));
        args.addAll(List.of(extra));
        SimProcess p = SimProcess.start(dir.resolve("logs"), VllmServerSim.class, args, Map.of("ASCEND_RT_VISIBLE_DEVICES", "2,3"));
        STARTED.add(p);
        p.awaitOutput("Application startup complete.", Duration.ofSeconds(120));
        Files.writeString(run.resolve("evidence/npu-smi-ready.txt"), NpuSmiFormat.info(store.read()), StandardCharsets.UTF_8);
        p.signalGroup("INT");
        assertThat(p.waitFor(Duration.ofSeconds(60))).isTrue();
        Files.writeString(run.resolve("evidence/serve.log"), p.stdout() + p.stderr(), StandardCharsets.UTF_8);
        Files.writeString(run.resolve("run.json"), """
                {"schema": "hbm-ledger/run/1", "source": "SIMULATED host (PlanDiffSimTest)",
                 "deployment": {"model": "llama-3.1-8b-shape", "tp": 2, "devices": [2, 3], "gpu_memory_utilization": %s},
                 "evidence": [{"file": "evidence/npu-smi-ready.txt", "moment": "ready"},
                              {"file": "evidence/serve.log", "moment": "startup"}]}
                """.formatted(util), StandardCharsets.UTF_8);
        return run;
    }

    private static JsonNode cli(String... args) throws Exception {
        CommandLine cl = Main.newCommandLine(args);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute(args)).as(err.toString()).isZero();
        return JSON.readTree(out.toString());
    }

    private static JsonNode figure(JsonNode plan, String name) {
        for (String list : List.of("figures", "check")) {
            for (JsonNode f : plan.get(list)) {
                if (f.get("name").asText().equals(name)) {
                    return f;
                }
            }
        }
        throw new AssertionError("no " + name + " in " + plan);
    }

    /**
     * Each run, planned with its own settings (taken from the run) and calibrated by itself,
     * reproduces vLLM's KV budget within 4 MiB and its block count within 1 block. The plan's
     * weights are hbm-ledger's sharding of the config (8030527488 B per device: vocab padded to a
     * multiple of 64, norms whole on each rank), the simulator's are total / TP (8030300353 B):
     * 227135 B apart, well inside one 8 MiB block; vLLM's own figures pass through %.2f GiB
     * printing nowhere here (the "Available memory: N" line is in bytes).
     */
    @Test
    void planWithARunsOwnSettingsReproducesItsKvBudgetAndBlocks() throws Exception {
        for (Path run : List.of(graphs09, graphs08, eager09)) {
            JsonNode p = cli("plan", MODEL, "--calibrate", run.toString(), "--format", "json");
            long diff = figure(p, "plan_minus_run_kv_budget").get("bytes").asLong();
            assertThat(Math.abs(diff)).as(run + ": plan - run KV budget").isLessThan(4L << 20);
            assertThat(Math.abs(figure(p, "plan_minus_run_blocks").get("value").asDouble())).as(run + ": blocks").isLessThanOrEqualTo(1);
            assertThat(p.get("layout").get("tp").asInt()).isEqualTo(2);
        }
    }

    /**
     * 0.9 -> 0.8 with nothing else changed: the KV cache moves by (0.8 - 0.9) x 65464696832 B =
     * -6546469683 B, give or take whole 8 MiB blocks; device used and the server's processes move by
     * the same (measured minus measured: measured).
     */
    @Test
    void diffOfTwoUtilizationsExplainsTheKvDelta() throws Exception {
        JsonNode d = cli("diff", graphs09.toString(), graphs08.toString(), "--format", "json");
        assertThat(d.get("changes")).hasSize(1);
        assertThat(d.get("changes").get(0).get("setting").asText()).isEqualTo("gpu_memory_utilization");
        JsonNode dev = d.get("devices").get(0);
        assertThat(dev.get("device").asText()).isEqualTo("npu:2/chip:0");
        JsonNode kv = row(dev, "kv_cache");
        assertThat(kv.get("expected_delta_bytes").asLong()).isEqualTo(Math.round(-0.1 * 65464696832L));
        assertThat(Math.abs(kv.get("delta_bytes").asLong() - kv.get("expected_delta_bytes").asLong())).isLessThan(8L << 20);
        assertThat(kv.get("explanation").asText()).contains("gpu_memory_utilization 0.9 -> 0.8", "explained within 1%");
        assertThat(kv.get("delta_confidence").asText()).isEqualTo("reported");
        JsonNode used = row(dev, "used");
        assertThat(used.get("delta_confidence").asText()).isEqualTo("measured");
        assertThat(used.get("mixed_confidence").asBoolean()).isFalse();
        assertThat(used.get("explanation").asText()).contains("kv_cache", "explained within 1%");
        assertThat(row(dev, "weights").get("delta_bytes").asLong()).isZero();
    }

    /**
     * Graphs -> eager: the simulator's graph pool (0.41 GiB per rank) goes; the eager run's ledger
     * has no graph line (unknown, not 0), so the graph row's delta stays unknown and the expected
     * change is minus the first run's pool; device used falls by that pool.
     */
    @Test
    void diffOfGraphsAndEagerExplainsTheGraphPool() throws Exception {
        JsonNode d = cli("diff", graphs09.toString(), eager09.toString(), "--format", "json");
        assertThat(d.get("changes")).hasSize(1);
        assertThat(d.get("changes").get(0).get("setting").asText()).isEqualTo("enforce_eager");
        JsonNode dev = d.get("devices").get(1);
        JsonNode graph = row(dev, "graph_pool");
        long pool = graph.get("a_bytes").asLong();
        assertThat(pool).isEqualTo(Math.round(0.41 * (1L << 30)));
        assertThat(graph.get("b_bytes").isNull()).isTrue();
        assertThat(graph.get("delta_bytes").isNull()).isTrue();
        assertThat(graph.get("delta_confidence").asText()).isEqualTo("unknown");
        assertThat(graph.get("expected_delta_bytes").asLong()).isEqualTo(-pool);
        assertThat(graph.get("explanation").asText()).contains("enforce_eager False -> True");
        JsonNode used = row(dev, "used");
        // npu-smi prints whole MiB: the used delta is the pool within 1 MiB
        assertThat(Math.abs(used.get("delta_bytes").asLong() + pool)).isLessThanOrEqualTo(1L << 20);
        assertThat(used.get("explanation").asText()).contains("graph_pool", "explained within 1%");
        assertThat(row(dev, "kv_cache").get("delta_bytes").asLong()).isZero();
    }

    private static JsonNode row(JsonNode device, String component) {
        for (JsonNode r : device.get("rows")) {
            if (r.get("component").asText().equals(component)) {
                return r;
            }
        }
        throw new AssertionError("no " + component + " in " + device);
    }
}

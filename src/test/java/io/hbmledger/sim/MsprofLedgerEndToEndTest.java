package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * End to end with the SIMULATORS: vLLM (TP 2 on devices 2 and 3) under msprof, one request after
 * ready, export, then {@code analyze} of a run directory whose run.json holds the instants this
 * test took. The ledger must place the device's peak inside the request and give the value at
 * ready, not a whole-run maximum.
 */
class MsprofLedgerEndToEndTest {

    private static final Duration LONG = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private final List<SimProcess> started = new ArrayList<>();

    @AfterEach
    void killAll() throws Exception {
        for (SimProcess p : started) {
            p.killGroup();
        }
    }

    private static List<String> java(Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void readyValuesAndThePeakUnderLoadWithTheirTimes() throws Exception {
        SimStateStore store = new SimStateStore(dir.resolve("host"));
        store.init(SimStateStore.idleHost(4, "910B1", 65536));
        Path run = dir.resolve("run");
        Path prof = run.resolve("evidence/msprof");
        int port = VllmServerSimTest.freePort();
        List<String> args = new ArrayList<>(List.of("--output=" + prof, "--sys-hardware-mem=on",
                "--sys-hardware-mem-freq=50", "--sim-home=" + store.home()));
        args.addAll(java(VllmServerSim.class, "serve", "m", "--port", String.valueOf(port), "--tensor-parallel-size", "2",
                "--sim-home", store.home().toString(), "--sim-step-ms", "1", "--sim-weights-gib", "2"));
        SimProcess p = SimProcess.start(dir.resolve("logs"), MsprofSim.class, args, Map.of("ASCEND_RT_VISIBLE_DEVICES", "2,3"));
        started.add(p);
        p.awaitOutput("Application startup complete.", LONG);
        // The simulated sampler can stall for a few hundred ms on a loaded machine; the ready
        // instant is taken once it has surely sampled the finished start-up (graph pool included),
        // as collect takes its ready moment after the server answers.
        Thread.sleep(1000);
        Instant ready = Instant.now();
        Thread.sleep(300);
        Instant loadStart = Instant.now();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/completions"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"x\",\"max_tokens\":300}")).build(),
                HttpResponse.BodyHandlers.ofString());
        Instant loadEnd = Instant.now();
        assertThat(r.statusCode()).isEqualTo(200);
        Thread.sleep(300);
        p.signalGroup("INT");
        assertThat(p.waitFor(LONG)).isTrue();
        SimProcess export = SimProcess.start(dir.resolve("logs"), MsprofSim.class,
                List.of("--export=on", "--output=" + prof), Map.of());
        started.add(export);
        assertThat(export.waitFor(LONG)).isTrue();
        Files.writeString(run.resolve("evidence/serve.log"), p.stdout() + p.stderr(), StandardCharsets.UTF_8);
        Files.writeString(run.resolve("run.json"), """
                {"schema": "hbm-ledger/run/1",
                 "deployment": {"model": "m", "tp": 2, "devices": [2, 3]},
                 "moments": {"ready": "%s", "load_start": "%s", "load_end": "%s"},
                 "evidence": [{"file": "evidence/serve.log", "moment": "startup"}, {"file": "evidence/msprof"}]}
                """.formatted(ready, loadStart, loadEnd), StandardCharsets.UTF_8);

        CommandLine cl = Main.newCommandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("analyze", "--format", "json", "--no-write", run.toString())).as(err.toString()).isZero();
        JsonNode report = new ObjectMapper().readTree(out.toString());
        assertThat(report.get("incomplete_reasons").toString()).doesNotContain("msprof");
        JsonNode d = report.get("devices").get(1);
        assertThat(d.get("device_id").asInt()).isEqualTo(3);
        // the simulator's sizes are the corpus export's: HCCL 404.0625 MB (TP 2 > 1), RUNTIME 92.1875 MB + GE 76.0 MB
        assertThat(entry(d, "hccl").get("bytes").asLong()).isEqualTo(423690240L);
        assertThat(entry(d, "hccl").get("moment").asText()).isEqualTo("ready");
        assertThat(entry(d, "cann_runtime").get("bytes").asLong()).isEqualTo(96665600L + 79691776L);
        // used at ready from npu_mem Device (no npu-smi sample in this run)
        assertThat(d.get("used_note").asText()).contains("msprof npu_mem Device", "before ready");
        long used = d.get("used_bytes").asLong();
        JsonNode peak = entry(d, "device_peak");
        assertThat(peak.get("note").asText()).contains("after ready, during the load");
        // one request holds round(1.26 GiB) x (2 prompt tokens + 300) / 2048 on each rank
        // (VllmHttpApi); the export writes whole KB, so peak - ready is that within 1 KiB
        long act = Math.round(1.26 * (1L << 30)) * 302 / 2048;
        JsonNode underLoad = entry(d, "activation_peak_under_load");
        assertThat(underLoad.get("confidence").asText()).isEqualTo("measured");
        assertThat(underLoad.get("bytes").asLong()).isCloseTo(act, within(1024L));
        assertThat(peak.get("bytes").asLong() - used).isEqualTo(underLoad.get("bytes").asLong());
        // npu_mem APP read at the device peak's own sample (same instant): the process grew the same
        assertThat(underLoad.get("note").asText())
                .contains(String.format(java.util.Locale.ROOT, "(npu_mem APP) grew %.1f MiB", act / (double) (1L << 20)));
        assertThat(underLoad.get("arithmetic").asText()).contains("device at ready " + used + " B");
        assertThat(checks(d)).contains("msprof_timeline=pass", "msprof_device_ids=pass");
    }

    private static JsonNode entry(JsonNode device, String component) {
        for (JsonNode e : device.get("entries")) {
            if (e.get("component").asText().equals(component)) {
                return e;
            }
        }
        throw new AssertionError("no " + component + " in " + device);
    }

    private static List<String> checks(JsonNode d) {
        List<String> out = new ArrayList<>();
        d.get("checks").forEach(c -> out.add(c.get("name").asText() + "=" + c.get("status").asText()));
        return out;
    }
}

package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VllmServerSimTest {

    private static final Duration START = Duration.ofSeconds(60);
    private static final long MIB = SimState.MIB;

    @TempDir
    Path dir;

    private SimStateStore store;
    private final List<SimProcess> started = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final ObjectMapper json = new ObjectMapper();

    @BeforeEach
    void host() throws IOException {
        store = new SimStateStore(dir.resolve("host"));
        store.init(SimStateStore.idleHost(8, "910B1", 65536));
    }

    @AfterEach
    void killAll() throws Exception {
        for (SimProcess p : started) {
            p.killGroup();
        }
    }

    private SimProcess server(int port, Map<String, String> env, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("serve", "sim-llama", "--port", String.valueOf(port),
                "--sim-home", store.home().toString(), "--sim-step-ms", "1"));
        args.addAll(List.of(extra));
        SimProcess p = SimProcess.start(dir.resolve("logs"), VllmServerSim.class, args, env);
        started.add(p);
        return p;
    }

    @Test
    void startupTakesMemoryStepByStepAndPrintsVllmAscendLines() throws Exception {
        int port = freePort();
        SimProcess p = server(port, Map.of("ASCEND_RT_VISIBLE_DEVICES", "4,5", "VLLM_LOGGING_LEVEL", "DEBUG"),
                "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.5", "--sim-weights-gib", "10",
                "--sim-activation-gib", "1", "--sim-graph-gib", "0.5");
        p.awaitOutput("Application startup complete.", START);
        String log = p.stdout();
        long pid = p.pid();
        assertThat(log).contains("SIMULATED vLLM server");
        assertThat(log).contains("(Worker_TP0 pid=" + pid + ") INFO ", "(Worker_TP1 pid=" + pid + ") INFO ");
        // 10 GiB of weights over TP 2
        assertThat(log).contains("[model_runner_v1.py:2705] Loading model weights took 5.0000 GB");
        // By hand, NPU 4 (idle 3377 MiB, runtime total 62432 MiB = 65464696832 bytes):
        // non-torch = used - reserved - weights = (3377 - 3104) + 92.1875 runtime + 76 GE + 404.0625 HCCL
        //           = 845.25 MiB; peak = 5120 weights + 1024 activation + 845.25 = 6989.25 MiB;
        // available = 0.5 x 62432 - 6989.25 = 24226.75 MiB = 25403588608 bytes. NPU 5 idles 1 MiB lower.
        assertThat(log).contains("(Worker_TP0 pid=" + pid + ") INFO ",
                "Available memory: 25403588608, total memory: 65464696832",
                "Available memory: 25404637184, total memory: 65464696832",
                "Available KV cache memory: 23.66 GiB");
        assertThat(log).contains("Memory profiling takes ", "Total non KV cache memory: 6.83GiB; "
                + "torch peak memory increase: 1.00GiB; non-torch forward increase memory: 0.83GiB; "
                + "weights memory: 5.00GiB.");
        // KV: 2 x 32 layers x (8 heads / TP 2) x 128 x 2 bytes = 65536 B/token; block 128 -> 8 MiB.
        // floor(24226.75 / 8) = 3028 blocks x 128 = 387,584 tokens; 387584 / 32768 = 11.83x
        assertThat(log).contains("(EngineCore_DP0 pid=" + pid + ") INFO ",
                "GPU KV cache size: 387,584 tokens",
                "Maximum concurrency for 32,768 tokens per request: 11.83x",
                "Graph capturing finished in 1 secs, took 0.50 GiB");
        // Process memory: 92.1875 + 76 + 5120 + 404.0625 + 3028 x 8 + 512 = 30428.25 MiB
        SimState s = store.read();
        assertThat(s.device(4).bytesOf(pid)).isEqualTo(Math.round(30428.25 * MIB));
        assertThat(s.device(5).bytesOf(pid)).isEqualTo(Math.round(30428.25 * MIB));
        assertThat(s.device(0).allocations()).isEmpty();
        String table = NpuSmiFormat.info(s);
        assertThat(table).contains("| 4       0                 | " + String.format("%-14s", pid)
                + "| vllm-sim                 | 30428                   |");
        assertThat(table).contains("33805/ 65536");  // 3377 + 30428.25

        p.signalGroup("INT");
        assertThat(p.waitFor(Duration.ofSeconds(30))).isTrue();
        assertThat(p.stderr()).contains("INFO:     Shutting down", "INFO:     Application shutdown complete.",
                "INFO:     Finished server process [" + pid + "]");
        assertThat(store.read().usedBytes(4)).isEqualTo(3377 * MIB);
    }

    @Test
    void answersOpenAiEndpointsAndHoldsActivationMemoryDuringARequest() throws Exception {
        int port = freePort();
        SimProcess p = server(port, Map.of(), "--api-key", "s3cret", "--sim-weights-gib", "2",
                "--sim-activation-gib", "1", "--sim-prefill-ms", "1500", "--max-model-len", "4096");
        p.awaitOutput("Application startup complete.", START);
        String base = "http://127.0.0.1:" + port;

        assertThat(get(base + "/health", null).statusCode()).isEqualTo(200);
        assertThat(get(base + "/v1/models", null).statusCode()).isEqualTo(401);
        JsonNode models = json.readTree(get(base + "/v1/models", "s3cret").body());
        assertThat(models.at("/data/0/id").asText()).isEqualTo("sim-llama");
        assertThat(models.at("/data/0/max_model_len").asInt()).isEqualTo(4096);

        // A completion runs 1.5 s of prefill; meanwhile NPU 0 holds its activation memory:
        // max(8 MiB, 1 GiB x (3 prompt + 5 completion tokens) / 2048) = 8 MiB
        CompletableFuture<HttpResponse<String>> pending = http.sendAsync(post(base + "/v1/completions",
                "{\"model\":\"sim-llama\",\"prompt\":\"hello there\",\"max_tokens\":5}"),
                HttpResponse.BodyHandlers.ofString());
        long activation = 0;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (activation == 0 && System.nanoTime() < deadline && !pending.isDone()) {
            activation = store.read().device(0).allocations().stream()
                    .filter(a -> a.tag().startsWith("activation")).mapToLong(SimState.Allocation::bytes).sum();
            Thread.sleep(20);
        }
        assertThat(activation).isEqualTo(8 * MIB);
        HttpResponse<String> done = pending.get();
        assertThat(done.statusCode()).isEqualTo(200);
        JsonNode c = json.readTree(done.body());
        assertThat(c.path("object").asText()).isEqualTo("text_completion");
        assertThat(c.at("/choices/0/finish_reason").asText()).isEqualTo("length");
        assertThat(c.at("/usage/prompt_tokens").asInt()).isEqualTo(3);     // 2 words + 1
        assertThat(c.at("/usage/completion_tokens").asInt()).isEqualTo(5);
        assertThat(store.read().device(0).allocations()).noneMatch(a -> a.tag().startsWith("activation"));

        HttpResponse<String> chat = http.send(post(base + "/v1/chat/completions",
                "{\"model\":\"sim-llama\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                + "\"max_tokens\":3,\"stream\":true}"), HttpResponse.BodyHandlers.ofString());
        assertThat(chat.statusCode()).isEqualTo(200);
        assertThat(chat.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        List<String> events = chat.body().lines().filter(l -> l.startsWith("data: ")).toList();
        // role chunk + 3 token chunks + [DONE]
        assertThat(events).hasSize(5);
        assertThat(events.get(4)).isEqualTo("data: [DONE]");
        assertThat(json.readTree(events.get(3).substring(6)).at("/choices/0/finish_reason").asText()).isEqualTo("length");

        HttpResponse<String> wrongModel = http.send(post(base + "/v1/completions",
                "{\"model\":\"other\",\"prompt\":\"x\"}"), HttpResponse.BodyHandlers.ofString());
        assertThat(wrongModel.statusCode()).isEqualTo(404);
        assertThat(json.readTree(wrongModel.body()).path("message").asText()).isEqualTo("The model `other` does not exist.");
        HttpResponse<String> tooLong = http.send(post(base + "/v1/completions",
                "{\"model\":\"sim-llama\",\"prompt\":\"x\",\"max_tokens\":5000}"), HttpResponse.BodyHandlers.ofString());
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(p.stderr()).contains("\"POST /v1/completions HTTP/1.1\" 200 OK", "\"GET /v1/models HTTP/1.1\" 401 Unauthorized");
        // vLLM prints its non-default args, the API key included; redacting it is the collector's job
        assertThat(p.stdout()).contains("'api_key': 's3cret'");
    }

    @Test
    void workerProcessesOwnTheMemoryAndOutliveAServerKilledAlone() throws Exception {
        SimProcess p = server(freePort(), Map.of("HBM_SIM_VLLM_WORKER_PROCS", "1"), "-tp", "2",
                "--sim-weights-gib", "2");
        p.awaitOutput("Application startup complete.", START);
        List<Long> children = p.process.toHandle().children().map(ProcessHandle::pid).toList();
        assertThat(children).hasSize(2);
        SimState s = store.read();
        long owner0 = s.device(0).allocations().get(0).pid();
        long owner1 = s.device(1).allocations().get(0).pid();
        assertThat(List.of(owner0, owner1)).containsExactlyInAnyOrderElementsOf(children);
        assertThat(s.device(0).bytesOf(p.pid())).isZero();
        assertThat(p.stdout()).contains("(Worker_TP0 pid=" + owner0 + ") INFO ", "(Worker_TP1 pid=" + owner1 + ") INFO ");
        // kill -9 of the server alone: its workers are orphaned and keep the NPUs busy
        p.process.destroyForcibly().waitFor();
        assertThat(store.read().device(1).bytesOf(owner1)).isPositive();
        // killing the process group ends them, and their memory goes with them
        new ProcessBuilder("kill", "-KILL", "--", "-" + p.pid()).start().waitFor();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!store.read().device(1).allocations().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(store.read().device(1).allocations()).isEmpty();
    }

    @Test
    void dyingDuringStartupFailsFastAndLeavesNoMemory() throws Exception {
        SimProcess p = server(freePort(), Map.of("HBM_SIM_VLLM_DIE_AT", "profile"), "--sim-weights-gib", "4");
        assertThat(p.waitFor(START)).isTrue();
        assertThat(p.process.exitValue()).isEqualTo(1);
        assertThat(p.stdout()).contains("Loading model weights took 4.0000 GB",
                "SIMULATED fault injected at start-up phase 'profile'",
                "RuntimeError: Engine core initialization failed.");
        assertThat(store.read().device(0).allocations()).isEmpty();
    }

    @Test
    void weightsLargerThanTheDeviceGiveTorchNpuOutOfMemory() throws Exception {
        SimProcess p = server(freePort(), Map.of(), "--sim-weights-gib", "70");
        assertThat(p.waitFor(START)).isTrue();
        assertThat(p.process.exitValue()).isEqualTo(1);
        // free on NPU 0 after runtime and GE: 65536 - 3437 - 92.1875 - 76 = 61930.8125 MiB = 60.48 GiB
        assertThat(p.stdout()).contains("RuntimeError: NPU out of memory. Tried to allocate 70.00 GiB (NPU 0; "
                + "60.97 GiB total capacity; 0.16 GiB already allocated; 0.16 GiB current active; 60.48 GiB free;");
        assertThat(store.read().device(0).allocations()).isEmpty();
    }

    private HttpResponse<String> get(String url, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest post(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer s3cret").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}

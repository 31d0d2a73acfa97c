package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The load against a small in-process HTTP server that streams, or stalls half-way. */
class WorkloadTest {

    HttpServer server;
    final List<String> upgrades = new CopyOnWriteArrayList<>();
    final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
    volatile boolean stall;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/v1/completions", ex -> {
            upgrades.add(String.valueOf(ex.getRequestHeaders().getFirst("Upgrade")));
            bodies.add(new ObjectMapper().readTree(ex.getRequestBody()));
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream o = ex.getResponseBody()) {
                o.write("data: {\"choices\":[{\"text\":\"a\"}]}\n\n".getBytes(StandardCharsets.UTF_8));
                o.flush();
                if (stall) {
                    Thread.sleep(5000);
                }
                o.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException clientGone) {
                // the client closed a stalled stream
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    Workload workload(int requests, Duration idle) {
        ServerClient c = new ServerClient(server.getAddress(), "sk-load-key");
        return new Workload(c, new Workload.Spec("completions", requests, 2, 12, 5, idle, Duration.ofSeconds(30)));
    }

    @Test
    void streamsEveryRequestOverHttp11WithTheAskedLengths() throws Exception {
        List<Workload.Result> r = workload(3, Duration.ofSeconds(5)).run("m");
        assertThat(r).hasSize(3).allMatch(Workload.Result::ok);
        // two events per answer: one token chunk and [DONE], each ending in a blank line
        assertThat(r).allMatch(x -> x.chunks() == 2);
        // HTTP/1.1 pinned: no h2c upgrade offered (vLLM's server drops POST bodies on it)
        assertThat(upgrades).containsOnly("null");
        JsonNode b = bodies.get(0);
        assertThat(b.path("prompt").asText().split(" ")).hasSize(12);
        assertThat(b.path("max_tokens").asInt()).isEqualTo(5);
        assertThat(b.path("ignore_eos").asBoolean()).isTrue();
        assertThat(b.path("stream").asBoolean()).isTrue();
    }

    @Test
    void aStalledStreamIsCutByItsIdleTimer() throws Exception {
        stall = true;
        List<Workload.Result> r = workload(1, Duration.ofSeconds(1)).run("m");
        // the server would finish after 5 s; the idle timer (1 s) cut the stream before that
        assertThat(r.get(0).ok()).isFalse();
        assertThat(r.get(0).error()).isEqualTo("no bytes for 1 s in the streamed body");
        assertThat(r.get(0).chunks()).isEqualTo(1);
    }
}

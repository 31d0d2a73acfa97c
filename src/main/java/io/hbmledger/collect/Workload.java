package io.hbmledger.collect;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small OpenAI-compatible load: {@code requests} streamed requests, {@code concurrency} at a time,
 * each with a prompt of about {@code inputTokens} tokens and {@code outputTokens} tokens asked for
 * with ignore_eos, so that both prefill and decode run. A streamed body has its own idle timer:
 * {@code HttpRequest.timeout} only covers the wait for headers.
 */
public final class Workload {

    /**
     * @param api          "completions" (/v1/completions) or "chat" (/v1/chat/completions)
     * @param requests     number of requests
     * @param concurrency  requests in flight at once
     * @param inputTokens  prompt length, in words (about one token each)
     * @param outputTokens max_tokens per request
     * @param idleTimeout  longest silence in a streamed body
     * @param deadline     wall-clock limit for the whole load
     */
    public record Spec(String api, int requests, int concurrency, int inputTokens, int outputTokens,
                       Duration idleTimeout, Duration deadline) {
        public static Spec defaults() {
            return new Spec("completions", 16, 4, 1024, 128, Duration.ofSeconds(60), Duration.ofMinutes(10));
        }
    }

    /** One request's outcome: HTTP status (0 when none), streamed chunks and bytes, times in ms, error text. */
    public record Result(int index, int status, int chunks, long bytes, long firstByteMs, long totalMs, String error) {
        public boolean ok() {
            return error == null && status == 200;
        }

        /** Cut short by {@link Workload#cancel}: the collection was interrupted; not a failure of the server. */
        public boolean cancelled() {
            return error != null && error.startsWith(CANCELLED);
        }
    }

    static final String CANCELLED = "cancelled: the collection was interrupted";

    private final AtomicBoolean cancelled = new AtomicBoolean();

    /**
     * Stops the load: no further request is sent, and requests in flight, whatever becomes of them
     * (the server is being stopped), are recorded as cancelled rather than failed.
     */
    public void cancel() {
        cancelled.set(true);
    }

    private final ServerClient client;
    private final Spec spec;

    public Workload(ServerClient client, Spec spec) {
        this.client = client;
        this.spec = spec;
    }

    /** Runs the load and returns every request's result, in request order. */
    public List<Result> run(String model) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(spec.concurrency(), r -> {
            Thread t = new Thread(r, "hbm-ledger-load");
            t.setDaemon(true);
            return t;
        });
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "hbm-ledger-idle-timer");
            t.setDaemon(true);
            return t;
        });
        try {
            String body = body(model);
            List<Future<Result>> futures = new ArrayList<>();
            for (int i = 0; i < spec.requests(); i++) {
                int index = i;
                futures.add(pool.submit(() -> one(index, body, timer)));
            }
            pool.shutdown();
            long deadline = System.nanoTime() + spec.deadline().toNanos();
            List<Result> out = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                Future<Result> f = futures.get(i);
                long left = deadline - System.nanoTime();
                try {
                    out.add(f.get(Math.max(left, 0), TimeUnit.NANOSECONDS));
                } catch (java.util.concurrent.TimeoutException e) {
                    f.cancel(true);
                    out.add(new Result(i, 0, 0, 0, -1, -1, "load deadline of " + spec.deadline().toSeconds() + " s passed"));
                } catch (java.util.concurrent.ExecutionException e) {
                    out.add(new Result(i, 0, 0, 0, -1, -1, String.valueOf(e.getCause())));
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
            timer.shutdownNow();
        }
    }

    String body(String model) {
        StringBuilder prompt = new StringBuilder();
        String[] words = {"the", "memory", "ledger", "counts", "every", "byte", "of", "device", "HBM", "cache"};
        for (int i = 0; i < spec.inputTokens(); i++) {
            prompt.append(words[i % words.length]).append(' ');
        }
        ObjectNode b = Json.MAPPER.createObjectNode();
        b.put("model", model);
        if ("chat".equals(spec.api())) {
            ArrayNode msgs = b.putArray("messages");
            msgs.addObject().put("role", "user").put("content", prompt.toString().strip());
        } else {
            b.put("prompt", prompt.toString().strip());
        }
        b.put("max_tokens", spec.outputTokens());
        b.put("min_tokens", spec.outputTokens());
        b.put("ignore_eos", true);
        b.put("temperature", 0);
        b.put("stream", true);
        try {
            return Json.MAPPER.writeValueAsString(b);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Result one(int index, String body, ScheduledExecutorService timer) {
        if (cancelled.get()) {
            return new Result(index, 0, 0, 0, -1, -1, CANCELLED + " before this request was sent");
        }
        Result r = send(index, body, timer);
        return cancelled.get() && !r.ok() ? new Result(index, r.status(), r.chunks(), r.bytes(), r.firstByteMs(), r.totalMs(),
                CANCELLED + " while this request ran (" + r.error() + ")") : r;
    }

    private Result send(int index, String body, ScheduledExecutorService timer) {
        String path = "chat".equals(spec.api()) ? "/v1/chat/completions" : "/v1/completions";
        long t0 = System.nanoTime();
        HttpRequest req = client.request(path, spec.idleTimeout())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        int status = 0;
        int chunks = 0;
        long bytes = 0;
        long firstByte = -1;
        AtomicBoolean idleFired = new AtomicBoolean();
        try {
            HttpResponse<InputStream> resp = client.http().send(req, HttpResponse.BodyHandlers.ofInputStream());
            status = resp.statusCode();
            AtomicLong last = new AtomicLong(System.nanoTime());
            long idleNanos = spec.idleTimeout().toNanos();
            try (InputStream in = resp.body()) {
                ScheduledFuture<?> watch = timer.scheduleAtFixedRate(() -> {
                    if (System.nanoTime() - last.get() > idleNanos && idleFired.compareAndSet(false, true)) {
                        try {
                            in.close();
                        } catch (IOException ignored) {
                            // the reader sees the close as an error
                        }
                    }
                }, 200, 200, TimeUnit.MILLISECONDS);
                try {
                    byte[] buf = new byte[8192];
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        if (n > 0) {
                            last.set(System.nanoTime());
                            if (firstByte < 0) {
                                firstByte = (System.nanoTime() - t0) / 1_000_000;
                            }
                            bytes += n;
                            for (int i = 0; i < n - 1; i++) {
                                if (buf[i] == '\n' && buf[i + 1] == '\n') {
                                    chunks++;
                                }
                            }
                        }
                    }
                } finally {
                    watch.cancel(false);
                }
            }
            long total = (System.nanoTime() - t0) / 1_000_000;
            if (idleFired.get()) {
                return new Result(index, status, chunks, bytes, firstByte, total,
                        "no bytes for " + spec.idleTimeout().toSeconds() + " s in the streamed body");
            }
            return new Result(index, status, chunks, bytes, firstByte, total, status == 200 ? null : "HTTP " + status);
        } catch (IOException e) {
            long total = (System.nanoTime() - t0) / 1_000_000;
            String why = idleFired.get() ? "no bytes for " + spec.idleTimeout().toSeconds() + " s in the streamed body"
                    : e.getClass().getSimpleName() + ": " + e.getMessage();
            return new Result(index, status, chunks, bytes, firstByte, total, why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(index, status, chunks, bytes, firstByte, -1, "interrupted");
        }
    }
}

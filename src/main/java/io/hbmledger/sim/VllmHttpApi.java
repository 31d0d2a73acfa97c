package io.hbmledger.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SIMULATOR: the OpenAI-compatible HTTP endpoints of the simulated vLLM server:
 * {@code GET /health}, {@code GET /v1/models}, {@code POST /v1/completions} and
 * {@code POST /v1/chat/completions} (non-streaming JSON and {@code "stream": true} server-sent
 * events ending in {@code data: [DONE]}), with vLLM's field names and error bodies.
 *
 * <p>Every request takes an activation allocation on each rank's device for as long as it runs
 * (prefill plus a fixed time per output token), sized by the request's tokens and capped at the
 * start-up profile's activation peak. Tokens are counted as whitespace-separated words plus one:
 * the simulator has no tokenizer, so token counts are its own.
 */
final class VllmHttpApi implements HttpHandler {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] WORDS = ("The simulated Ascend NPU answers with placeholder text while "
            + "the ledger watches its memory").split(" ");

    private final VllmArgs args;
    private final SimModel model;
    private final VllmEngineSim engine;
    private final SimStateStore store;
    private final VllmLog log;
    private final long pid;
    private final long prefillMs;
    private final long msPerToken;
    private final long created = System.currentTimeMillis() / 1000;
    private final AtomicLong requestIds = new AtomicLong();

    VllmHttpApi(VllmArgs args, SimModel model, VllmEngineSim engine, SimStateStore store, VllmLog log,
            long pid, long prefillMs, long msPerToken) {
        this.args = args;
        this.model = model;
        this.engine = engine;
        this.store = store;
        this.log = log;
        this.pid = pid;
        this.prefillMs = prefillMs;
        this.msPerToken = msPerToken;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        int status = 500;
        try {
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            if (path.equals("/health") && method.equals("GET")) {
                status = send(ex, 200, "");
            } else if (!path.startsWith("/v1/")) {
                status = send(ex, 404, "{\"detail\":\"Not Found\"}");
            } else if (args.apiKey() != null && !("Bearer " + args.apiKey())
                    .equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                status = send(ex, 401, "{\"error\":\"Unauthorized\"}");
            } else if (path.equals("/v1/models") && method.equals("GET")) {
                status = send(ex, 200, models());
            } else if ((path.equals("/v1/completions") || path.equals("/v1/chat/completions"))
                    && method.equals("POST")) {
                status = generate(ex, path.equals("/v1/chat/completions"));
            } else {
                status = send(ex, 404, "{\"detail\":\"Not Found\"}");
            }
        } catch (RuntimeException e) {
            status = send(ex, 500, error("InternalServerError", e.getMessage(), 500));
        } finally {
            log.uvicorn(ex.getRemoteAddress().getAddress().getHostAddress() + ":"
                    + ex.getRemoteAddress().getPort() + " - \"" + ex.getRequestMethod() + " "
                    + ex.getRequestURI() + " HTTP/1.1\" " + status + " " + reason(status));
            ex.close();
        }
    }

    private String models() throws IOException {
        ObjectNode m = JSON.createObjectNode();
        m.put("id", args.servedName());
        m.put("object", "model");
        m.put("created", created);
        m.put("owned_by", "vllm");
        m.put("root", args.model());
        m.putNull("parent");
        m.put("max_model_len", model.maxModelLen());
        ObjectNode list = JSON.createObjectNode();
        list.put("object", "list");
        list.putArray("data").add(m);
        return JSON.writeValueAsString(list);
    }

    private int generate(HttpExchange ex, boolean chat) throws IOException {
        JsonNode req;
        try {
            req = JSON.readTree(ex.getRequestBody());
        } catch (IOException e) {
            return send(ex, 400, error("BadRequestError", "invalid JSON body: " + e.getMessage(), 400));
        }
        if (req == null || !req.isObject()) {
            return send(ex, 400, error("BadRequestError", "the body must be a JSON object", 400));
        }
        String name = req.path("model").asText(args.servedName());
        if (!name.equals(args.servedName())) {
            return send(ex, 404, error("NotFoundError", "The model `" + name + "` does not exist.", 404));
        }
        int promptTokens;
        if (chat) {
            if (!req.path("messages").isArray()) {
                return send(ex, 400, error("BadRequestError", "'messages' is required", 400));
            }
            promptTokens = 0;
            for (JsonNode m : req.get("messages")) {
                promptTokens += tokens(m.path("content").asText("")) + 4;
            }
        } else {
            JsonNode p = req.path("prompt");
            if (p.isMissingNode()) {
                return send(ex, 400, error("BadRequestError", "'prompt' is required", 400));
            }
            promptTokens = tokens(p.isArray() && p.size() > 0 ? p.get(0).asText() : p.asText());
        }
        int maxTokens = req.path(chat && req.has("max_completion_tokens") ? "max_completion_tokens" : "max_tokens")
                .asInt(16);
        if (promptTokens + maxTokens > model.maxModelLen()) {
            return send(ex, 400, error("BadRequestError", "This model's maximum context length is "
                    + model.maxModelLen() + " tokens. However, you requested " + (promptTokens + maxTokens)
                    + " tokens (" + promptTokens + " in the messages, " + maxTokens
                    + " in the completion). Please reduce the length of the messages or completion.", 400));
        }
        boolean stream = req.path("stream").asBoolean(false);
        boolean includeUsage = req.path("stream_options").path("include_usage").asBoolean(false);
        String id = (chat ? "chatcmpl-" : "cmpl-") + HexFormat.of().formatHex(randomBytes());
        String tag = "activation:" + requestIds.incrementAndGet();
        long act = Math.max(8 * SimState.MIB, Math.min(engine.activationBytes(),
                engine.activationBytes() * (promptTokens + maxTokens) / 2048));
        List<VllmEngineSim.Rank> held = new ArrayList<>();
        try {
            for (VllmEngineSim.Rank r : engine.ranks()) {
                store.allocate(r.device(), VllmEngineSim.ownedBy(r, tag, act));
                held.add(r);
            }
        } catch (SimStateStore.SimOutOfMemory e) {
            release(held, tag);
            return send(ex, 500, error("InternalServerError", "NPU out of memory (SIMULATED): " + e.getMessage(), 500));
        }
        try {
            VllmEngineSim.sleep(prefillMs);
            if (stream) {
                return stream(ex, chat, id, name, promptTokens, maxTokens, includeUsage);
            }
            VllmEngineSim.sleep(msPerToken * maxTokens);
            ObjectNode body = base(id, chat ? "chat.completion" : "text_completion", name);
            ObjectNode choice = body.putArray("choices").addObject();
            choice.put("index", 0);
            if (chat) {
                ObjectNode msg = choice.putObject("message");
                msg.put("role", "assistant");
                msg.put("content", text(maxTokens));
                msg.putNull("reasoning_content");
                msg.putArray("tool_calls");
            } else {
                choice.put("text", text(maxTokens));
            }
            choice.putNull("logprobs");
            choice.put("finish_reason", "length");
            choice.putNull("stop_reason");
            usage(body, promptTokens, maxTokens);
            return send(ex, 200, JSON.writeValueAsString(body));
        } finally {
            release(held, tag);
        }
    }

    private int stream(HttpExchange ex, boolean chat, String id, String name, int promptTokens,
            int maxTokens, boolean includeUsage) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        String object = chat ? "chat.completion.chunk" : "text_completion";
        if (chat) {
            ObjectNode first = base(id, object, name);
            ObjectNode c = first.putArray("choices").addObject();
            c.put("index", 0);
            c.putObject("delta").put("role", "assistant").put("content", "");
            c.putNull("logprobs");
            c.putNull("finish_reason");
            event(out, first);
        }
        for (int i = 0; i < maxTokens; i++) {
            VllmEngineSim.sleep(msPerToken);
            ObjectNode chunk = base(id, object, name);
            ObjectNode c = chunk.putArray("choices").addObject();
            c.put("index", 0);
            String piece = (i == 0 ? "" : " ") + WORDS[i % WORDS.length];
            if (chat) {
                c.putObject("delta").put("content", piece);
            } else {
                c.put("text", piece);
            }
            c.putNull("logprobs");
            if (i == maxTokens - 1) {
                c.put("finish_reason", "length");
            } else {
                c.putNull("finish_reason");
            }
            c.putNull("stop_reason");
            event(out, chunk);
        }
        if (includeUsage) {
            ObjectNode u = base(id, object, name);
            u.putArray("choices");
            usage(u, promptTokens, maxTokens);
            event(out, u);
        }
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        return 200;
    }

    private static void event(OutputStream out, ObjectNode chunk) throws IOException {
        out.write(("data: " + JSON.writeValueAsString(chunk) + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private ObjectNode base(String id, String object, String name) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", id);
        n.put("object", object);
        n.put("created", System.currentTimeMillis() / 1000);
        n.put("model", name);
        return n;
    }

    private static void usage(ObjectNode body, int prompt, int completion) {
        ObjectNode u = body.putObject("usage");
        u.put("prompt_tokens", prompt);
        u.put("total_tokens", prompt + completion);
        u.put("completion_tokens", completion);
        u.putNull("prompt_tokens_details");
    }

    private void release(List<VllmEngineSim.Rank> held, String tag) {
        for (VllmEngineSim.Rank r : held) {
            try {
                store.release(r.device(), r.ownerPid(), tag);
            } catch (IOException e) {
                log.error("APIServer", "simulator", "cannot release simulated activation memory: " + e);
            }
        }
    }

    static int tokens(String text) {
        String t = text.strip();
        return t.isEmpty() ? 1 : t.split("\\s+").length + 1;
    }

    private static String text(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : " ").append(WORDS[i % WORDS.length]);
        }
        return b.toString();
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[16];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    private static String error(String type, String message, int code) {
        ObjectNode e = JSON.createObjectNode();
        e.put("object", "error");
        e.put("message", message);
        e.put("type", type);
        e.putNull("param");
        e.put("code", code);
        try {
            return JSON.writeValueAsString(e);
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static int send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (!body.isEmpty()) {
            ex.getResponseHeaders().set("Content-Type", "application/json");
        }
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
        return status;
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 404 -> "Not Found";
            default -> "Internal Server Error";
        };
    }

}

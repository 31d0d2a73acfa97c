package io.hbmledger.collect;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Talks to the OpenAI-compatible server. Pinned to HTTP/1.1: the JDK's default cleartext h2c
 * upgrade makes vLLM's server drop POST bodies (STACK.md).
 */
public final class ServerClient {

    private final HttpClient http;
    private final URI base;
    private final String apiKey;

    public ServerClient(InetSocketAddress address, String apiKey) {
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(3))
                .build();
        this.base = URI.create("http://" + address.getHostString() + ":" + address.getPort());
        this.apiKey = apiKey;
    }

    public HttpClient http() {
        return http;
    }

    public URI uri(String path) {
        return base.resolve(path);
    }

    public HttpRequest.Builder request(String path, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(timeout);
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        return b;
    }

    /** True when GET path answers 200 within the timeout. */
    public boolean answers(String path, Duration timeout) {
        return status(path, timeout) == 200;
    }

    /** The HTTP status of GET path, or 0 when nothing answered within the timeout. */
    public int status(String path, Duration timeout) {
        try {
            HttpResponse<Void> r = http.send(request(path, timeout).GET().build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /**
     * A hint for a 401 or 403 answer: vLLM's api_server guards /v1/* with --api-key (or VLLM_API_KEY) and
     * answers 401 to a request without the matching "Authorization: Bearer" header; waiting never helps.
     * Null for any other status.
     */
    public static String unauthorizedHint(int status, String path, String howToGiveKey) {
        if (status != 401 && status != 403) {
            return null;
        }
        return path + " answers " + status + (status == 401 ? " Unauthorized" : " Forbidden")
                + ": the server was started with an API key (--api-key or VLLM_API_KEY) and the request carried none or"
                + " another one; " + howToGiveKey;
    }

    /** The first model id listed by /v1/models, or null. */
    public String servedModel(Duration timeout) {
        try {
            HttpResponse<String> r = http.send(request("/v1/models", timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return null;
            }
            JsonNode data = Json.MAPPER.readTree(r.body()).path("data");
            return data.isArray() && data.size() > 0 ? data.get(0).path("id").asText(null) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}

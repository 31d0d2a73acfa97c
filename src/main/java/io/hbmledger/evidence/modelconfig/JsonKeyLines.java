package io.hbmledger.evidence.modelconfig;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The 1-based line of each object key in a JSON text, so that a value read from config.json or
 * an index file can name its line. Keys are dotted paths from the root ({@code "vocab_size"},
 * {@code "quantization_config.fmt"}, {@code "metadata.total_size"}); keys inside arrays are not
 * recorded. The first occurrence of a path wins.
 */
public final class JsonKeyLines {

    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonKeyLines() {
    }

    /**
     * @throws IOException when the text is not well-formed JSON (the message names the line)
     */
    public static Map<String, Integer> of(String json) throws IOException {
        Map<String, Integer> lines = new HashMap<>();
        try (JsonParser p = FACTORY.createParser(json)) {
            java.util.ArrayDeque<String> path = new java.util.ArrayDeque<>();
            java.util.ArrayDeque<Boolean> inObject = new java.util.ArrayDeque<>();
            String pendingKey = null;
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                switch (t) {
                    case FIELD_NAME -> {
                        pendingKey = p.currentName();
                        if (!inObject.contains(Boolean.FALSE)) {
                            String full = path.isEmpty() ? pendingKey : String.join(".", reversed(path)) + "." + pendingKey;
                            lines.putIfAbsent(full, p.currentTokenLocation().getLineNr());
                        }
                    }
                    case START_OBJECT, START_ARRAY -> {
                        inObject.push(t == JsonToken.START_OBJECT);
                        path.push(pendingKey == null ? "[]" : pendingKey);
                        pendingKey = null;
                    }
                    case END_OBJECT, END_ARRAY -> {
                        inObject.pop();
                        path.pop();
                    }
                    default -> pendingKey = null;
                }
            }
        }
        // the root object itself was pushed as "[]"; strip it from the recorded paths
        Map<String, Integer> out = new HashMap<>();
        lines.forEach((k, v) -> out.put(k.startsWith("[].") ? k.substring(3) : k, v));
        return out;
    }

    private static Iterable<String> reversed(java.util.ArrayDeque<String> stack) {
        java.util.List<String> l = new java.util.ArrayList<>(stack);
        java.util.Collections.reverse(l);
        return l;
    }
}

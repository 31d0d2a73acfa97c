package io.hbmledger.evidence.command;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.Optional;

/**
 * EngineArgs' keyword arguments as Python writes them, in vLLM's own argument records
 * ({@code args: Namespace(...)}, {@code non-default args: {...}}, the engine config) and in a
 * user's {@code LLM(...)} call: one key and value to an observation, and the bracket depth that
 * tells the record's own keys from a nested config's.
 */
public final class EngineKeywords {

    private EngineKeywords() {
    }

    /**
     * The observation of one keyword: a count setting (tensor/pipeline/data parallel size,
     * max_model_len or its config name max_seq_len), {@code model} (value 1, text = the model),
     * {@code enforce_eager} (True/False as 1/0), {@code kv_cache_dtype} (bytes per element); empty
     * for other keys, {@code None}, and values that are not of the key's kind.
     *
     * @param value the value without its quotes
     */
    public static Optional<Observation> observe(String key, String value, int lineNo) {
        if (value.isEmpty() || value.equals("None")) {
            return Optional.empty();
        }
        if (ServeCommand.countOf(key) != null && value.matches("\\d{1,9}")) {
            return Optional.of(Observation.value(ServeCommand.countOf(key), Integer.parseInt(value), lineNo, value));
        }
        if (key.equals("model")) {
            return Optional.of(Observation.value(Quantity.MODEL, 1, lineNo, value));
        }
        if (key.equals("enforce_eager") && (value.equals("True") || value.equals("False"))) {
            return Optional.of(Observation.value(Quantity.ENFORCE_EAGER, value.equals("True") ? 1 : 0, lineNo, value));
        }
        if (key.equals("kv_cache_dtype")) {
            return KvDtype.bytes(value).map(b -> Observation.value(Quantity.KV_CACHE_DTYPE_BYTES, b, lineNo, value));
        }
        return Optional.empty();
    }

    /** Brackets opened minus closed in text[from, to), quoted text skipped. */
    public static int depthChange(String text, int from, int to) {
        int d = 0;
        char quote = 0;
        for (int i = Math.max(from, 0); i < Math.min(to, text.length()); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '{' || c == '(' || c == '[') {
                d++;
            } else if (c == '}' || c == ')' || c == ']') {
                d--;
            }
        }
        return d;
    }
}

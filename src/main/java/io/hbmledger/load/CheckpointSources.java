package io.hbmledger.load;

import io.hbmledger.evidence.TextLines;
import io.hbmledger.evidence.modelconfig.JsonKeyLines;
import io.hbmledger.ledger.Source;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Citations for checkpoint files that hold the quoted text at the cited line, as every other
 * ledger source does ({@code file:line "text as written"}): a config.json by the lines of the
 * keys that size the model, a safetensors file by the start of its JSON header.
 */
public final class CheckpointSources {

    /**
     * The config.json keys an estimate rests on, most telling first: hidden_size and the layer
     * count size nearly every tensor, the vocabulary the embeddings and head.
     */
    private static final List<String> SIZING_KEYS = List.of("hidden_size", "num_hidden_layers", "vocab_size",
            "intermediate_size");

    /** Longest quote; a verbatim prefix of the line, so still found there as written. */
    private static final int MAX_QUOTE = 80;

    private CheckpointSources() {
    }

    /**
     * The lines of config.json's sizing keys, each quoted as written ({@code "hidden_size": 4096});
     * a nested text_config's key when the top level has none; the first line when none is there.
     */
    static List<Source> config(String cited, String json) {
        List<String> lines = TextLines.split(json);
        Map<String, Integer> keyLines;
        try {
            keyLines = JsonKeyLines.of(json);
        } catch (IOException e) {
            keyLines = Map.of(); // the config reader has already refused malformed JSON
        }
        List<Source> out = new ArrayList<>();
        for (String key : SIZING_KEYS) {
            Integer line = keyLines.get(key);
            if (line == null) {
                line = keyLines.entrySet().stream().filter(e -> e.getKey().endsWith("." + key))
                        .map(Map.Entry::getValue).min(Integer::compare).orElse(null);
            }
            if (line != null && line >= 1 && line <= lines.size()) {
                String quote = member(lines.get(line - 1), key);
                if (quote != null) {
                    out.add(new Source(cited, line, quote));
                }
            }
        }
        if (out.isEmpty()) {
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i).strip();
                if (!l.isEmpty()) {
                    out.add(new Source(cited, i + 1, cut(l)));
                    break;
                }
            }
        }
        return out;
    }

    /**
     * {@code "key": value} as written on the line, up to the comma or brace that ends the value
     * (a minified config holds every key on one line); null when the key is not on the line.
     */
    static String member(String line, String key) {
        int at = line.indexOf("\"" + key + "\"");
        if (at < 0) {
            return null;
        }
        int depth = 0;
        boolean inString = false;
        int i = at + key.length() + 2;
        for (; i < line.length(); i++) {
            char c = line.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if ((c == ']' || c == '}') && depth > 0) {
                depth--;
            } else if ((c == ',' || c == '}' || c == ']') && depth == 0) {
                break;
            }
        }
        return cut(line.substring(at, i).stripTrailing());
    }

    /**
     * A safetensors file cited by its JSON header: the line is where the header starts (1, unless
     * the 8-byte length holds a line feed byte), the quote the header's first members as written.
     *
     * @throws IOException when the file cannot be read
     */
    static Source header(Path file, String cited) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(8 + 4 * MAX_QUOTE);
        }
        int line = 1;
        for (int i = 0; i < Math.min(8, head.length); i++) {
            if (head[i] == '\n') {
                line++;
            }
        }
        if (head.length <= 8) {
            return new Source(cited, line, null);
        }
        String json = new String(head, 8, head.length - 8, StandardCharsets.UTF_8);
        int nl = json.indexOf('\n');
        if (nl >= 0) {
            json = json.substring(0, nl);
        }
        if (json.length() > MAX_QUOTE) {
            // end at a member boundary so that the quote reads as JSON, not mid-word
            int comma = json.lastIndexOf(',', MAX_QUOTE);
            json = json.substring(0, comma > 1 ? comma : MAX_QUOTE);
        }
        return new Source(cited, line, json);
    }

    private static String cut(String s) {
        return s.length() <= MAX_QUOTE ? s : s.substring(0, MAX_QUOTE);
    }
}

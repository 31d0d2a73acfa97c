package io.hbmledger.evidence.safetensors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.Quote;
import io.hbmledger.evidence.modelconfig.JsonKeyLines;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A sharded checkpoint's {@code model.safetensors.index.json}: {@code metadata.total_size}
 * (bytes of tensor data over all shards, headers excluded, as written by
 * transformers' {@code save_pretrained}) and {@code weight_map} (tensor name to shard file).
 *
 * @param totalSize {@code metadata.total_size} in bytes, or null when the file has none
 * @param weightMap tensor name to shard file name, in file order
 * @param totalSizeLine 1-based line of the {@code total_size} key (0 when absent)
 * @param weightMapLine 1-based line of the {@code weight_map} key
 */
public record SafetensorsIndex(Long totalSize, Map<String, String> weightMap, int totalSizeLine, int weightMapLine) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public SafetensorsIndex {
        weightMap = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(weightMap));
    }

    private static EvidenceException outOfRange(String display, Map<String, Integer> lines, String text) {
        return new EvidenceException(display, lines.getOrDefault("metadata.total_size", 0), "metadata.total_size "
                + Quote.of(text) + " is out of range (more bytes than a 64-bit count holds); expected the"
                + " checkpoint's size in bytes: the index is damaged, take a fresh copy");
    }

    /** Shard file names in first-seen order. */
    public Set<String> shards() {
        return new LinkedHashSet<>(weightMap.values());
    }

    /**
     * Parses an index file's text. Pure.
     *
     * @throws EvidenceException when the text is not JSON, or has no {@code weight_map} object
     */
    public static SafetensorsIndex parse(String display, String text) throws EvidenceException {
        JsonNode root;
        Map<String, Integer> lines;
        try {
            root = JSON.readTree(text);
            lines = JsonKeyLines.of(text);
        } catch (JsonProcessingException e) {
            throw new EvidenceException(display, e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                    "not valid JSON (" + e.getOriginalMessage() + "); expected a safetensors index with \"weight_map\"");
        } catch (IOException e) {
            throw new EvidenceException(display, 0, "not valid JSON (" + e.getMessage() + ")");
        }
        if (root == null || !root.isObject() || !root.path("weight_map").isObject()) {
            throw new EvidenceException(display, 1, "expected a JSON object with a \"weight_map\" object (model.safetensors.index.json), found none");
        }
        Map<String, String> map = new LinkedHashMap<>();
        root.get("weight_map").fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        JsonNode ts = root.path("metadata").path("total_size");
        Long total = null;
        // checked, not ts.asLong() alone: that wraps an out-of-range number without a word
        if (ts.isNumber()) {
            if (!ts.canConvertToLong()) {
                throw outOfRange(display, lines, ts.asText());
            }
            total = ts.asLong();
        } else if (ts.isTextual() && ts.asText().matches("\\d+")) {
            try {
                total = ts.asText().length() > 19 ? null : Long.valueOf(ts.asText());
            } catch (NumberFormatException e) {
                total = null;
            }
            if (total == null) {
                throw outOfRange(display, lines, ts.asText());
            }
        }
        return new SafetensorsIndex(total, map, lines.getOrDefault("metadata.total_size", 0),
                lines.getOrDefault("weight_map", 1));
    }
}

package io.hbmledger.run;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Jackson mapping of {@link RunManifest} to and from {@code run.json} bytes. */
final class RunJson {

    private final ObjectMapper mapper = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    {
        // docs/run.schema.json gives each field one JSON type, and Jackson's default coercions
        // would let a typing mistake through only when it happens to look right: "tp": "2",
        // "tp": 2.5, "gpu_memory_utilization": "0.8", "ep": "true" or 1, "moment": 3 were read
        // while "abc" was refused. Every field takes its own JSON type only.
        mapper.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Float)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        // "tp": 2, "tp": 1 would run as TP 1 without a word (last one wins); refuse the file instead
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    RunManifest parse(byte[] json) throws IOException {
        return mapper.readValue(json, RunManifest.class);
    }

    byte[] toBytes(RunManifest m) {
        try {
            String s = mapper.writeValueAsString(m) + "\n";
            return s.getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("run.json could not be serialised: " + e.getMessage(), e);
        }
    }

    /** The JSON text of a string, quotes included, as it would appear in the file. */
    String quoted(String s) {
        try {
            return mapper.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

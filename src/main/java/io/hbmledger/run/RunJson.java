package io.hbmledger.run;

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
        // "tp": "2" or "tp": 2.5 is a typing mistake, not a count: Jackson would coerce both
        // silently, so integer fields take JSON integers only.
        mapper.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
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

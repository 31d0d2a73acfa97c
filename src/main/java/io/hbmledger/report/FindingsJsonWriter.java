package io.hbmledger.report;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hbmledger.ledger.Source;
import io.hbmledger.verdict.Figure;
import io.hbmledger.verdict.Finding;
import java.io.IOException;
import java.util.List;

/**
 * Writes the findings as report-v1's {@code findings} array: byte figures in bytes, other
 * figures as {@code value}; an unknown figure has both null, never 0.
 */
final class FindingsJsonWriter {

    private FindingsJsonWriter() {
    }

    static void write(JsonGenerator g, List<Finding> findings) throws IOException {
        g.writeArrayFieldStart("findings");
        for (Finding f : findings) {
            g.writeStartObject();
            g.writeStringField("kind", f.kind().jsonName());
            g.writeStringField("severity", f.severity().jsonName());
            g.writeArrayFieldStart("devices");
            for (String d : f.devices()) {
                g.writeString(d);
            }
            g.writeEndArray();
            if (f.instance() != null) {
                g.writeStringField("instance", f.instance());
            }
            g.writeStringField("text", f.text());
            g.writeArrayFieldStart("figures");
            for (Figure x : f.figures()) {
                figure(g, x);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("advice");
            for (String a : f.advice()) {
                g.writeString(a);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void figure(JsonGenerator g, Figure x) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", x.name());
        if (x.value() != null) {
            g.writeNumberField("value", x.value());
        } else {
            g.writeFieldName("bytes");
            if (x.bytes() == null) {
                g.writeNull();
            } else {
                g.writeNumber(x.bytes());
            }
        }
        g.writeStringField("confidence", x.confidence().jsonName());
        if (x.arithmetic() != null) {
            g.writeStringField("arithmetic", x.arithmetic());
        }
        g.writeArrayFieldStart("sources");
        for (Source s : x.sources()) {
            g.writeStartObject();
            g.writeStringField("file", s.file());
            g.writeNumberField("line", s.line());
            if (s.text() != null) {
                g.writeStringField("text", s.text());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}

package io.hbmledger.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.Observation;
import java.io.IOException;
import java.io.Writer;
import java.util.List;

/** Writes evidence as {@code hbm-ledger/evidence/1} JSON (shared/contracts/evidence-v1.md). */
public final class EvidenceJsonWriter {

    public static final String SCHEMA = "hbm-ledger/evidence/1";

    private final JsonFactory factory = new JsonFactory();

    public void write(List<EvidenceFile> files, Writer out) throws IOException {
        try (JsonGenerator g = factory.createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("schema", SCHEMA);
            g.writeArrayFieldStart("files");
            for (EvidenceFile f : files) {
                g.writeStartObject();
                g.writeStringField("path", f.path());
                g.writeStringField("format", f.format());
                g.writeArrayFieldStart("observations");
                for (Observation o : f.observations()) {
                    writeObservation(g, o);
                }
                g.writeEndArray();
                g.writeArrayFieldStart("warnings");
                for (String w : f.warnings()) {
                    g.writeString(w);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    static void writeObservation(JsonGenerator g, Observation o) throws IOException {
        g.writeStartObject();
        g.writeStringField("quantity", o.quantity());
        if (o.bytes() != null) {
            g.writeNumberField("bytes", o.bytes());
        } else {
            writeNumber(g, "value", o.value());
        }
        g.writeNumberField("line", o.line());
        if (o.text() != null) {
            g.writeStringField("text", o.text());
        }
        optional(g, "device", o.device());
        if (o.deviceId() != null) {
            g.writeNumberField("device_id", o.deviceId());
        }
        optional(g, "process", o.process());
        if (o.pid() != null) {
            g.writeNumberField("pid", o.pid());
        }
        optional(g, "process_name", o.processName());
        optional(g, "component", o.component());
        if (o.tokensPerRequest() != null) {
            g.writeNumberField("tokens_per_request", o.tokensPerRequest());
        }
        if (o.samples() != null) {
            g.writeNumberField("samples", o.samples());
        }
        if (o.timestampUs() != null) {
            g.writeNumberField("timestamp_us", o.timestampUs());
        }
        if (o.dpRank() != null) {
            g.writeNumberField("dp_rank", o.dpRank());
        }
        g.writeEndObject();
    }

    /** Whole numbers print without a fraction so that counts read as counts. */
    static void writeNumber(JsonGenerator g, String name, double v) throws IOException {
        if (v == Math.rint(v) && Math.abs(v) < 9.007199254740992E15) {
            g.writeNumberField(name, (long) v);
        } else {
            g.writeNumberField(name, v);
        }
    }

    private static void optional(JsonGenerator g, String name, String v) throws IOException {
        if (v != null) {
            g.writeStringField(name, v);
        }
    }
}

package io.hbmledger.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.Observation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Writer;
import java.util.List;

/** Writes evidence as {@code hbm-ledger/evidence/1} JSON (shared/contracts/evidence-v1.md). */
public final class EvidenceJsonWriter {

    public static final String SCHEMA = "hbm-ledger/evidence/1";

    private final JsonFactory factory = new JsonFactory();

    /** The document as text, written to {@code out}. */
    public void write(List<EvidenceFile> files, Writer out) throws IOException {
        try (JsonGenerator g = factory.createGenerator(out)) {
            write(files, g);
        }
    }

    /**
     * The document as UTF-8 bytes, with no control character in it ({@link TerminalSafeEscapes}):
     * what {@code evidence --format json} writes to standard output in one go.
     */
    public byte[] utf8(List<EvidenceFile> files) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        try (JsonGenerator g = factory.createGenerator(bytes, JsonEncoding.UTF8)) {
            write(files, g);
        }
        return bytes.toByteArray();
    }

    private static void write(List<EvidenceFile> files, JsonGenerator g) throws IOException {
        g.setCharacterEscapes(TerminalSafeEscapes.INSTANCE);
        g.useDefaultPrettyPrinter();
        g.writeStartObject();
        g.writeStringField("schema", SCHEMA);
        g.writeArrayFieldStart("files");
        for (EvidenceFile f : files) {
            g.writeStartObject();
            g.writeStringField("path", f.path());
            g.writeStringField("format", f.format().contractName());
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
            if (!f.parts().isEmpty()) {
                writeParts(g, f.parts());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeRaw('\n');
    }

    /**
     * A paste's line ranges: {@code {"first_line", "last_line", "format", "label", "observations"}} (a count),
     * and {@code "idle": {"line", "phrase"}} for a table the prose says was taken before the server started.
     */
    private static void writeParts(JsonGenerator g, List<EvidencePart> parts) throws IOException {
        g.writeArrayFieldStart("parts");
        for (EvidencePart p : parts) {
            g.writeStartObject();
            g.writeNumberField("first_line", p.firstLine());
            g.writeNumberField("last_line", p.lastLine());
            g.writeStringField("format", p.shownFormat());
            g.writeStringField("label", p.label());
            g.writeNumberField("observations", p.observations().size());
            if (p.idle() != null) {
                // added: the prose above the table says it shows idle devices, before the server started
                writeStated(g, "idle", p.idle().line(), p.idle().phrase());
            }
            if (p.started() != null) {
                // added: the prose says the table was taken after the server started
                writeStated(g, "started", p.started().line(), p.started().phrase());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void writeStated(JsonGenerator g, String field, int line, String phrase) throws IOException {
        g.writeObjectFieldStart(field);
        g.writeNumberField("line", line);
        g.writeStringField("phrase", phrase);
        g.writeEndObject();
    }

    static void writeObservation(JsonGenerator g, Observation o) throws IOException {
        g.writeStartObject();
        g.writeStringField("quantity", o.quantity().contractName());
        if (o.bytes() != null) {
            g.writeNumberField("bytes", o.bytes());
        } else {
            writeNumber(g, "value", o.value());
        }
        g.writeNumberField("line", o.line());
        if (o.text() != null) {
            g.writeStringField("text", o.text());
        }
        optional(g, "device", o.context().device());
        if (o.context().deviceId() != null) {
            g.writeNumberField("device_id", o.context().deviceId());
        }
        optional(g, "process", o.context().process());
        if (o.context().pid() != null) {
            g.writeNumberField("pid", o.context().pid());
        }
        optional(g, "process_name", o.context().processName());
        optional(g, "component", o.context().component());
        if (o.context().tokensPerRequest() != null) {
            g.writeNumberField("tokens_per_request", o.context().tokensPerRequest());
        }
        if (o.context().samples() != null) {
            g.writeNumberField("samples", o.context().samples());
        }
        if (o.context().timestampUs() != null) {
            g.writeNumberField("timestamp_us", o.context().timestampUs());
        }
        if (o.context().dpRank() != null) {
            g.writeNumberField("dp_rank", o.context().dpRank());
        }
        if (o.context().inferred()) {
            g.writeStringField("confidence", "inferred");
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

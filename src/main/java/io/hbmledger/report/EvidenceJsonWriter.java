package io.hbmledger.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.Observation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

/** Writes evidence as {@code hbm-ledger/evidence/1} JSON (shared/contracts/evidence-v1.md). */
public final class EvidenceJsonWriter {

    public static final String SCHEMA = "hbm-ledger/evidence/1";

    private final JsonFactory factory = new JsonFactory();

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

    /**
     * The observation's field names, encoded once: written by name, Jackson checks and copies each
     * name's characters again for every field (~10,000 of them for a 1 GiB msprof export, run
     * while the JSON writer is still cold: interpreted). Same bytes either way.
     */
    private static final SerializedString BYTES = new SerializedString("bytes");
    private static final SerializedString COMPONENT = new SerializedString("component");
    private static final SerializedString CONFIDENCE = new SerializedString("confidence");
    private static final SerializedString DEVICE = new SerializedString("device");
    private static final SerializedString DEVICE_ID = new SerializedString("device_id");
    private static final SerializedString DP_RANK = new SerializedString("dp_rank");
    private static final SerializedString LINE = new SerializedString("line");
    private static final SerializedString PID = new SerializedString("pid");
    private static final SerializedString PROCESS = new SerializedString("process");
    private static final SerializedString PROCESS_NAME = new SerializedString("process_name");
    private static final SerializedString QUANTITY = new SerializedString("quantity");
    private static final SerializedString SAMPLES = new SerializedString("samples");
    private static final SerializedString TEXT = new SerializedString("text");
    private static final SerializedString TIMESTAMP_US = new SerializedString("timestamp_us");
    private static final SerializedString TOKENS_PER_REQUEST = new SerializedString("tokens_per_request");
    private static final SerializedString VALUE = new SerializedString("value");

    static void writeObservation(JsonGenerator g, Observation o) throws IOException {
        g.writeStartObject();
        string(g, QUANTITY, o.quantity().contractName());
        if (o.bytes() != null) {
            number(g, BYTES, o.bytes());
        } else {
            writeNumber(g, VALUE, o.value());
        }
        number(g, LINE, o.line());
        optional(g, TEXT, o.text());
        Context c = o.context();
        optional(g, DEVICE, c.device());
        optional(g, DEVICE_ID, c.deviceId());
        optional(g, PROCESS, c.process());
        optional(g, PID, c.pid());
        optional(g, PROCESS_NAME, c.processName());
        optional(g, COMPONENT, c.component());
        optional(g, TOKENS_PER_REQUEST, c.tokensPerRequest());
        optional(g, SAMPLES, c.samples());
        optional(g, TIMESTAMP_US, c.timestampUs());
        optional(g, DP_RANK, c.dpRank());
        if (c.inferred()) {
            string(g, CONFIDENCE, "inferred");
        }
        g.writeEndObject();
    }

    /** Whole numbers print without a fraction so that counts read as counts. */
    static void writeNumber(JsonGenerator g, SerializableString name, double v) throws IOException {
        g.writeFieldName(name);
        if (v == Math.rint(v) && Math.abs(v) < 9.007199254740992E15) {
            g.writeNumber((long) v);
        } else {
            g.writeNumber(v);
        }
    }

    private static void number(JsonGenerator g, SerializableString name, long v) throws IOException {
        g.writeFieldName(name);
        g.writeNumber(v);
    }

    private static void string(JsonGenerator g, SerializableString name, String v) throws IOException {
        g.writeFieldName(name);
        g.writeString(v);
    }

    private static void optional(JsonGenerator g, SerializableString name, String v) throws IOException {
        if (v != null) {
            string(g, name, v);
        }
    }

    private static void optional(JsonGenerator g, SerializableString name, Number v) throws IOException {
        if (v != null) {
            number(g, name, v.longValue());
        }
    }
}

package io.hbmledger.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.ProcessLevelEntry;
import io.hbmledger.ledger.Source;
import io.hbmledger.verdict.Finding;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.util.List;

/**
 * Writes a ledger as {@code hbm-ledger/report/1} JSON (shared/contracts/report-v1.md; full schema
 * in docs/report.schema.json). Amounts are bytes; unknown amounts are null, never 0.
 */
public final class LedgerJsonWriter {

    public static final String SCHEMA = "hbm-ledger/report/1";

    private final JsonFactory factory = new JsonFactory();

    /** The whole document as a string, so a failure never leaves half of it anywhere. */
    public String toJson(Ledger ledger, Layout layout, String run) throws IOException {
        return toJson(ledger, List.of(), layout, run);
    }

    /** The whole document with the run's findings (report-v1 "Findings"). */
    public String toJson(Ledger ledger, List<Finding> findings, Layout layout, String run) throws IOException {
        StringWriter w = new StringWriter();
        write(ledger, findings, layout, run, w);
        return w.toString();
    }

    public void write(Ledger ledger, List<Finding> findings, Layout layout, String run, Writer out) throws IOException {
        try (JsonGenerator g = factory.createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("schema", SCHEMA);
            g.writeStringField("status", ledger.status().jsonName());
            strings(g, "incomplete_reasons", ledger.incompleteReasons());
            FindingsJsonWriter.write(g, findings);
            g.writeObjectFieldStart("run");
            nullable(g, "path", run);
            nullable(g, "model", layout.model());
            g.writeNumberField("tp", layout.tp());
            g.writeNumberField("dp", layout.dp());
            g.writeArrayFieldStart("devices");
            for (int d : layout.devices()) {
                g.writeNumber(d);
            }
            g.writeEndArray();
            g.writeBooleanField("devices_given", layout.devicesGiven());
            if (layout.origin() != null) {
                g.writeStringField("deployment_origin", layout.origin());
            }
            g.writeEndObject();
            strings(g, "notes", ledger.notes());
            g.writeArrayFieldStart("devices");
            for (DeviceLedger d : ledger.devices()) {
                device(g, d);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("process_level");
            for (ProcessLevelEntry p : ledger.processLevel()) {
                g.writeStartObject();
                g.writeStringField("component", p.component());
                nullableLong(g, "bytes", p.bytes());
                g.writeStringField("confidence", p.confidence().jsonName());
                g.writeStringField("scope", p.scope());
                sources(g, p.sources());
                nullable(g, "note", p.note());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    private static void device(JsonGenerator g, DeviceLedger d) throws IOException {
        g.writeStartObject();
        g.writeStringField("device", d.device());
        nullableInt(g, "device_id", d.deviceId());
        g.writeArrayFieldStart("ranks");
        for (int r : d.ranks()) {
            g.writeNumber(r);
        }
        g.writeEndArray();
        g.writeStringField("moment", d.moment());
        nullableLong(g, "capacity_bytes", d.capacity().bytes());
        amountSource(g, "capacity", d.capacity());
        nullableLong(g, "used_bytes", d.used().bytes());
        amountSource(g, "used", d.used());
        g.writeArrayFieldStart("entries");
        for (Entry e : d.entries()) {
            g.writeStartObject();
            g.writeStringField("component", e.component());
            nullableLong(g, "bytes", e.bytes());
            g.writeStringField("confidence", e.confidence().jsonName());
            sources(g, e.sources());
            nullable(g, "note", e.note());
            nullable(g, "moment", e.moment());
            g.writeBooleanField("counted", e.counted());
            if (e.arithmetic() != null) {
                g.writeStringField("arithmetic", e.arithmetic());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        nullableLong(g, "counted_bytes", d.countedSum());
        nullableLong(g, "residual_bytes", d.residualBytes());
        nullable(g, "residual_note", d.residualNote());
        g.writeArrayFieldStart("checks");
        for (Check c : d.checks()) {
            g.writeStartObject();
            g.writeStringField("name", c.name());
            g.writeStringField("status", c.status().jsonName());
            g.writeStringField("detail", c.detail());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void amountSource(JsonGenerator g, String name, DeviceLedger.Amount a) throws IOException {
        if (a.source() != null) {
            g.writeFieldName(name + "_source");
            source(g, a.source());
        } else {
            g.writeNullField(name + "_source");
        }
        nullable(g, name + "_note", a.note());
        g.writeStringField(name + "_confidence", a.confidence().jsonName());
        if (a.arithmetic() != null) {
            g.writeStringField(name + "_arithmetic", a.arithmetic());
        }
    }

    private static void sources(JsonGenerator g, List<Source> sources) throws IOException {
        g.writeArrayFieldStart("sources");
        for (Source s : sources) {
            source(g, s);
        }
        g.writeEndArray();
    }

    private static void source(JsonGenerator g, Source s) throws IOException {
        g.writeStartObject();
        g.writeStringField("file", s.file());
        g.writeNumberField("line", s.line());
        if (s.dataRow()) {
            g.writeBooleanField("data_row", true); // line counts data rows, header excluded
        }
        nullable(g, "text", s.text());
        g.writeEndObject();
    }

    private static void strings(JsonGenerator g, String name, List<String> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }

    private static void nullable(JsonGenerator g, String name, String v) throws IOException {
        if (v == null) {
            g.writeNullField(name);
        } else {
            g.writeStringField(name, v);
        }
    }

    private static void nullableLong(JsonGenerator g, String name, Long v) throws IOException {
        if (v == null) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, v);
        }
    }

    private static void nullableInt(JsonGenerator g, String name, Integer v) throws IOException {
        if (v == null) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, v);
        }
    }
}

package io.hbmledger.diff;

import static io.hbmledger.ledger.Units.gib;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * A diff as text or as JSON, schema {@value #SCHEMA} (docs/diff.schema.json). There is no HTML
 * form yet: the project has no HTML report to put the two bars in.
 */
public final class DiffOutput {

    public static final String SCHEMA = "hbm-ledger/diff/1";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private DiffOutput() {
    }

    public static void text(Diff d, PrintWriter out) {
        out.println("A: " + d.a());
        out.println("B: " + d.b());
        out.println();
        out.println(d.changes().isEmpty() ? "settings: no difference stated" : "settings that differ:");
        for (Diff.Change c : d.changes()) {
            out.println(String.format(Locale.ROOT, "  %-24s %-16s -> %-16s  (%s | %s)", c.setting(), orUnknown(c.a()), orUnknown(c.b()),
                    c.sourceA() == null ? "A: not stated" : c.sourceA(), c.sourceB() == null ? "B: not stated" : c.sourceB()));
        }
        for (Diff.DevicePair p : d.devices()) {
            out.println();
            out.println("device " + p.device() + " (A device id " + orUnknown(p.idA()) + ", B device id " + orUnknown(p.idB()) + ")");
            out.println(String.format(Locale.ROOT, "  %-30s %10s %-9s %10s %-9s %10s %-18s %s", "component", "A", "", "B", "", "B - A", "", ""));
            for (Diff.Row r : p.rows()) {
                out.println(String.format(Locale.ROOT, "  %-30s %10s %-9s %10s %-9s %10s %-18s %s", r.component(), amount(r.a()),
                        r.confidenceA(), amount(r.b()), r.confidenceB(), amount(r.delta()),
                        r.deltaConfidence() + (r.mixed() ? " (mixed)" : ""), r.explanation() == null ? "" : r.explanation()));
            }
        }
        if (!d.notes().isEmpty()) {
            out.println();
            out.println("notes:");
            d.notes().forEach(n -> out.println("  - " + n));
        }
        out.flush();
    }

    public static String json(Diff d) {
        ObjectNode root = JSON.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("a", d.a());
        root.put("b", d.b());
        ArrayNode ch = root.putArray("changes");
        for (Diff.Change c : d.changes()) {
            ObjectNode o = ch.addObject();
            o.put("setting", c.setting());
            o.put("a", c.a());
            o.put("b", c.b());
            o.put("source_a", c.sourceA());
            o.put("source_b", c.sourceB());
        }
        ArrayNode devs = root.putArray("devices");
        for (Diff.DevicePair p : d.devices()) {
            ObjectNode o = devs.addObject();
            o.put("device", p.device());
            o.put("device_id_a", p.idA());
            o.put("device_id_b", p.idB());
            ArrayNode rows = o.putArray("rows");
            for (Diff.Row r : p.rows()) {
                ObjectNode x = rows.addObject();
                x.put("component", r.component());
                x.put("a_bytes", r.a());
                x.put("a_confidence", r.confidenceA());
                x.put("b_bytes", r.b());
                x.put("b_confidence", r.confidenceB());
                x.put("delta_bytes", r.delta());
                x.put("delta_confidence", r.deltaConfidence());
                x.put("mixed_confidence", r.mixed());
                x.put("expected_delta_bytes", r.expected());
                x.put("explanation", r.explanation());
            }
        }
        ArrayNode onlyA = root.putArray("only_in_a");
        d.onlyA().forEach(onlyA::add);
        ArrayNode onlyB = root.putArray("only_in_b");
        d.onlyB().forEach(onlyB::add);
        ArrayNode notes = root.putArray("notes");
        d.notes().forEach(notes::add);
        try {
            return JSON.writeValueAsString(root) + System.lineSeparator();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String amount(Long b) {
        return b == null ? "unknown" : gib(b);
    }

    private static String orUnknown(Object o) {
        return o == null ? "unknown" : o.toString();
    }
}

package io.hbmledger.report;

import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.Source;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code analyze --explain COMPONENT}: one ledger component on every device, with its
 * confidence, every source line as written, its note and its arithmetic.
 */
public final class ExplainTextWriter {

    /** The component names this ledger has, in first-seen order, for a message naming the choices. */
    public static List<String> components(Ledger ledger) {
        return components(ledger.devices());
    }

    static List<String> components(List<DeviceLedger> devices) {
        List<String> names = new ArrayList<>();
        for (DeviceLedger d : devices) {
            for (Entry e : d.entries()) {
                if (!names.contains(e.component())) {
                    names.add(e.component());
                }
            }
        }
        return names;
    }

    /**
     * @param component a name from {@link #components(Ledger)}
     * @param run the run directory as named by the user (paths are shown relative to it), or null
     */
    public void write(Ledger ledger, String component, String run, PrintWriter out) {
        out.println(component + " on each device" + (run == null ? "" : " of " + run) + " (GiB)");
        for (DeviceLedger d : ledger.devices()) {
            Optional<Entry> entry = d.entries().stream().filter(e -> e.component().equals(component)).findFirst();
            if (entry.isEmpty()) {
                out.println("  " + d.device() + ": not in this device's ledger");
                continue;
            }
            Entry e = entry.get();
            out.println("  " + d.device() + "  " + LedgerTextWriter.gib(e.bytes(), e.counted() || !e.known())
                    + "  " + e.confidence().jsonName() + (e.moment() == null ? "" : "  at " + e.moment())
                    + (e.counted() ? "" : "  (not in the sum)"));
            for (Source s : e.sources()) {
                print(out, "      ", "source: " + s.shortForm(), run);
            }
            if (e.note() != null && !e.note().isEmpty()) {
                print(out, "      ", e.note(), run);
            }
            if (e.arithmetic() != null) {
                print(out, "      ", "= " + e.arithmetic(), run);
            }
        }
        out.flush();
    }

    private static void print(PrintWriter out, String indent, String text, String run) {
        for (String line : LedgerTextWriter.wrap(ReportHeading.relative(text, run), SummaryTextWriter.WIDTH - indent.length())) {
            out.println(indent + line);
        }
    }
}

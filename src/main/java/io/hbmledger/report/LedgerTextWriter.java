package io.hbmledger.report;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.ProcessLevelEntry;
import io.hbmledger.ledger.Source;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints a ledger for a person: per device, an aligned table in GiB with two decimals, a
 * confidence and a source on every line ("unknown" where nothing was measured, never 0), the
 * note and arithmetic under each line, the residual and the checks.
 */
public final class LedgerTextWriter {

    public void write(Ledger ledger, Layout layout, String run, PrintWriter out) {
        out.println("HBM ledger" + (run == null ? "" : " for " + run) + "   status: " + ledger.status().jsonName());
        StringBuilder dep = new StringBuilder("  deployment:");
        if (layout.model() != null) {
            dep.append(' ').append(layout.model());
        }
        dep.append("  TP ").append(layout.tp()).append("  DP ").append(layout.dp()).append("  devices ")
                .append(layout.devices()).append(layout.devicesGiven() ? "" : " (assumed)");
        out.println(dep);
        for (String r : ledger.incompleteReasons()) {
            out.println("  " + (ledger.status() == Ledger.Status.FAILED ? "why: " : "incomplete: ") + r);
        }
        for (String n : ledger.notes()) {
            out.println("  note: " + n);
        }
        out.println("  GiB = 2^30 bytes; (x.xx) = shown for reference, not in the sum; residual = used - sum");
        for (DeviceLedger d : ledger.devices()) {
            out.println();
            device(d, out);
        }
        if (!ledger.processLevel().isEmpty()) {
            out.println();
            out.println("process level (not part of any device's sum)");
            List<String[]> rows = new ArrayList<>();
            for (ProcessLevelEntry p : ledger.processLevel()) {
                rows.add(new String[] {p.component(), gib(p.bytes(), true), p.confidence().jsonName(),
                    p.sources().isEmpty() ? "-" : p.sources().get(0).shortForm(), p.scope()});
            }
            aligned(rows, new boolean[] {false, true, false, false, false}, out, "  ");
        }
        out.flush();
    }

    private static void device(DeviceLedger d, PrintWriter out) {
        StringBuilder head = new StringBuilder(d.device());
        head.append("   device ").append(d.deviceId());
        if (!d.ranks().isEmpty()) {
            head.append(d.ranks().size() == 1 ? ", rank " : ", ranks ").append(join(d.ranks()));
        }
        head.append("   moment: ").append(d.moment());
        out.println(head);
        List<String[]> rows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        rows.add(new String[] {"component", "GiB", "confidence", "source"});
        notes.add(null);
        rows.add(amountRow("capacity", d.capacity()));
        notes.add(d.capacity().note());
        rows.add(amountRow("used", d.used()));
        notes.add(d.used().note());
        for (Entry e : d.entries()) {
            String g = gib(e.bytes(), e.counted() || !e.known());
            rows.add(new String[] {e.component(), g, e.confidence().jsonName(), sources(e.sources())});
            String n = e.note();
            if (e.arithmetic() != null) {
                n = (n == null ? "" : n + "; ") + "= " + e.arithmetic();
            }
            notes.add(n);
        }
        rows.add(new String[] {"sum of counted", d.countedSum() == null ? "-" : gib(d.countedSum(), true), "", "entries without parentheses"});
        notes.add(null);
        rows.add(new String[] {"residual", gib(d.residualBytes(), true),
            d.residualBytes() == null ? Confidence.UNKNOWN.jsonName() : "inferred", "used - counted entries"});
        notes.add(d.residualNote());
        int[] w = widths(rows);
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            StringBuilder b = new StringBuilder("  ");
            b.append(pad(r[0], w[0])).append("  ").append(padLeft(r[1], w[1])).append("  ")
                    .append(pad(r[2], w[2])).append("  ").append(r[3]);
            out.println(b.toString().stripTrailing());
            String n = notes.get(i);
            if (n != null && !n.isEmpty()) {
                out.println("  " + " ".repeat(w[0] + 2 + w[1] + 2) + "  " + n);
            }
        }
        out.println("  checks");
        List<String[]> checks = new ArrayList<>();
        for (Check c : d.checks()) {
            checks.add(new String[] {c.name(), c.status().jsonName(), c.detail()});
        }
        aligned(checks, new boolean[] {false, false, false}, out, "    ");
    }

    private static String[] amountRow(String name, DeviceLedger.Amount a) {
        return new String[] {name, gib(a.bytes(), true),
            a.known() ? Confidence.MEASURED.jsonName() : Confidence.UNKNOWN.jsonName(),
            a.source() == null ? "-" : a.source().shortForm()};
    }

    private static String sources(List<Source> s) {
        if (s.isEmpty()) {
            return "-";
        }
        return s.get(0).shortForm() + (s.size() > 1 ? " +" + (s.size() - 1) + " more" : "");
    }

    static String gib(Long bytes, boolean counted) {
        if (bytes == null) {
            return "unknown";
        }
        String v = String.format(Locale.ROOT, "%.2f", bytes / 1073741824.0);
        return counted ? v : "(" + v + ")";
    }

    private static String join(List<Integer> l) {
        StringBuilder b = new StringBuilder();
        for (int x : l) {
            b.append(b.length() == 0 ? "" : ",").append(x);
        }
        return b.toString();
    }

    private static int[] widths(List<String[]> rows) {
        int[] w = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        return w;
    }

    private static String pad(String s, int w) {
        return s + " ".repeat(Math.max(0, w - s.length()));
    }

    private static String padLeft(String s, int w) {
        // keep the decimal points aligned when some amounts are in parentheses
        String t = s.endsWith(")") ? s : s + " ";
        return " ".repeat(Math.max(0, w + 1 - t.length())) + t;
    }

    private static void aligned(List<String[]> rows, boolean[] right, PrintWriter out, String indent) {
        if (rows.isEmpty()) {
            return;
        }
        int[] w = widths(rows);
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder(indent);
            for (int i = 0; i < r.length; i++) {
                b.append(right[i] ? " ".repeat(w[i] - r[i].length()) + r[i] : pad(r[i], w[i]));
                if (i < r.length - 1) {
                    b.append("  ");
                }
            }
            out.println(b.toString().stripTrailing());
        }
    }
}

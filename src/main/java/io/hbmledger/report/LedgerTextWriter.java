package io.hbmledger.report;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.ProcessLevelEntry;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.Units;
import io.hbmledger.verdict.Finding;
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

    /** Above this many devices, a summary table comes first and only notable devices are detailed. */
    static final int DETAIL_ALL_UP_TO = 4;

    private final boolean allDevices;

    public LedgerTextWriter() {
        this(false);
    }

    /** @param allDevices print every device's full ledger, however many there are */
    public LedgerTextWriter(boolean allDevices) {
        this.allDevices = allDevices;
    }

    public void write(Ledger ledger, Layout layout, String run, PrintWriter out) {
        write(ledger, layout, run, null, out);
    }

    /** @param source where the run's evidence came from (run.json {@code source}), or null */
    public void write(Ledger ledger, Layout layout, String run, String source, PrintWriter out) {
        write(ledger, List.of(), layout, run, source, out);
    }

    /**
     * The ledger with the findings first: the answer before the evidence behind it.
     *
     * @param source where the run's evidence came from (run.json {@code source}), or null
     */
    public void write(Ledger ledger, List<Finding> findings, Layout layout, String run, String source, PrintWriter out) {
        out.println("HBM ledger" + (run == null ? "" : " for " + run) + "   status: " + ledger.status().jsonName());
        if (source != null && !source.isBlank()) {
            out.println("  evidence from: " + source);
        }
        out.println("  " + ReportHeading.deployment(layout));
        if (!findings.isEmpty()) {
            out.println();
            FindingsTextWriter.write(findings, out);
        }
        for (String r : ledger.incompleteReasons()) {
            out.println("  " + (ledger.status() == Ledger.Status.FAILED ? "why: " : "incomplete: ") + r);
        }
        for (String n : ledger.notes()) {
            out.println("  note: " + n);
        }
        out.println("  GiB = 2^30 bytes; (x.xx) = shown for reference, not in the sum; residual = used - sum");
        List<DeviceLedger> detailed = new ArrayList<>();
        if (allDevices || ledger.devices().size() <= DETAIL_ALL_UP_TO) {
            detailed.addAll(ledger.devices());
        } else {
            out.println();
            summary(ledger.devices(), out);
            for (DeviceLedger d : ledger.devices()) {
                boolean failing = d.checks().stream().anyMatch(c -> c.status() == Check.Status.FAIL);
                if (failing || detailed.isEmpty()) {
                    detailed.add(d);
                }
            }
        }
        for (DeviceLedger d : detailed) {
            out.println();
            device(d, out);
        }
        if (detailed.size() < ledger.devices().size()) {
            out.println();
            out.println("(" + (ledger.devices().size() - detailed.size()) + " more device ledgers: --all-devices prints them, --format json holds all)");
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

    private static void summary(List<DeviceLedger> devices, PrintWriter out) {
        out.println("summary (GiB)");
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"device", "rank", "capacity", "used", "counted", "residual", "checks"});
        for (DeviceLedger d : devices) {
            StringBuilder c = new StringBuilder();
            for (Check k : d.checks()) {
                if (k.status() == Check.Status.FAIL || k.status() == Check.Status.WARN) {
                    c.append(c.length() == 0 ? "" : ", ").append(k.name()).append(' ').append(k.status().jsonName());
                } else if (k.name().equals(Check.LEDGER_SUM_VS_USED) && k.detail().contains("by construction")) {
                    c.append(c.length() == 0 ? "" : ", ").append("residual 0 by construction (server memory not split)");
                }
            }
            rows.add(new String[] {d.device(), join(d.ranks()), gib(d.capacity().bytes(), true),
                gib(d.used().bytes(), true), d.countedSum() == null ? "-" : gib(d.countedSum(), true),
                gib(d.residualBytes(), true), c.length() > 0 ? c.toString() : noData(d) ? "no data" : "no warnings"});
        }
        aligned(rows, new boolean[] {false, true, true, true, true, true, false}, out, "  ");
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
        notes.add(withArithmetic(d.capacity().note(), d.capacity().arithmetic()));
        rows.add(amountRow("used", d.used()));
        notes.add(withArithmetic(d.used().note(), d.used().arithmetic()));
        for (Entry e : d.entries()) {
            String g = gib(e.bytes(), e.counted() || !e.known());
            rows.add(new String[] {e.component(), g, e.confidence().jsonName(), sources(e.sources())});
            notes.add(withArithmetic(e.note(), e.arithmetic()));
        }
        rows.add(new String[] {"sum of counted", d.countedSum() == null ? "-" : gib(d.countedSum(), true), "", "lines above without parentheses"});
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
                String indent = "  " + " ".repeat(w[0] + 2 + w[1] + 2) + "  ";
                for (String part : wrap(n, Math.max(60, NOTE_WIDTH - indent.length()))) {
                    out.println(indent + part);
                }
            }
        }
        if (d.checks().isEmpty()) {
            return; // no header over nothing
        }
        out.println("  checks");
        List<String[]> checks = new ArrayList<>();
        for (Check c : d.checks()) {
            checks.add(new String[] {c.name(), c.status().jsonName(), c.detail()});
        }
        aligned(checks, new boolean[] {false, false, false}, out, "    ");
    }

    /** Notes are wrapped so that a line stays within this many columns where possible. */
    static final int NOTE_WIDTH = 120;

    /** Splits text at spaces into lines of at most width characters (longer words stay whole). */
    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    /** A line's note, then its calculation when it was worked out from other numbers. */
    private static String withArithmetic(String note, String arithmetic) {
        if (arithmetic == null) {
            return note;
        }
        return (note == null ? "" : note + "; ") + "= " + arithmetic;
    }

    private static String[] amountRow(String name, DeviceLedger.Amount a) {
        return new String[] {name, gib(a.bytes(), true), a.confidence().jsonName(),
            a.source() == null ? "no evidence" : a.source().shortForm()};
    }

    private static String sources(List<Source> s) {
        if (s.isEmpty()) {
            return "no evidence";
        }
        StringBuilder b = new StringBuilder(s.get(0).shortForm());
        java.util.Set<Integer> lines = new java.util.LinkedHashSet<>();
        int elsewhere = 0;
        for (Source x : s.subList(1, s.size())) {
            if (x.file().equals(s.get(0).file())) {
                if (x.line() != s.get(0).line()) {
                    lines.add(x.line());
                }
            } else {
                elsewhere++;
            }
        }
        for (int line : lines) {
            b.append(s.get(0).dataRow() ? ", row " : ", :").append(line);
        }
        if (elsewhere > 0) {
            b.append(" +").append(elsewhere).append(" more");
        }
        return b.toString();
    }

    static String gib(Long bytes, boolean counted) {
        if (bytes == null) {
            return "unknown";
        }
        String v = Units.gibNumber(bytes);
        return counted ? v : "(" + v + ")";
    }

    /** Nothing known about the device: "no warnings" would read as a clean bill of health. */
    private static boolean noData(DeviceLedger d) {
        return !d.used().known() && !d.capacity().known() && d.entries().stream().noneMatch(Entry::known);
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
        TextTable.print(rows, right, indent, out);
    }

}

package io.hbmledger.report;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.verdict.Finding;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The default text view, one screen: the findings, then one table across devices (a row per
 * device, a column per ledger component in GiB, {@code ?} for unknown, residual signed, free =
 * capacity - used), then one line per distinct warning and per incomplete reason. The evidence
 * behind each number is in the detail view ({@link LedgerTextWriter}, {@code --detail}).
 */
public final class SummaryTextWriter {

    /** Lines stay within this many columns (the table of a deployment with many components may not). */
    static final int WIDTH = 118;

    /**
     * @param run the run directory as named by the user, or null for evidence files
     * @param source where the run's evidence came from (run.json {@code source}), or null
     */
    public void write(Ledger ledger, List<Finding> findings, Layout layout, String run, String source, PrintWriter out) {
        List<DeviceLedger> devices = ledger.devices();
        String moments = String.join(", ", devices.stream().map(DeviceLedger::moment).distinct().toList());
        out.println("HBM ledger" + (run == null ? "" : " for " + run) + "   status: " + ledger.status().jsonName()
                + (moments.isEmpty() ? "" : "   moment: " + moments));
        if (source != null && !source.isBlank()) {
            wrapped(out, "  evidence from: ", source, run);
        }
        wrapped(out, "  ", ReportHeading.deployment(layout), run);
        out.println();
        FindingsTextWriter.write(findings, out);
        table(devices, out);
        for (String r : ledger.incompleteReasons()) {
            wrapped(out, "  " + (ledger.status() == Ledger.Status.FAILED ? "why: " : "incomplete: "), r, run);
        }
        for (String n : ledger.notes()) {
            wrapped(out, "  note: ", n, run);
        }
        for (Map.Entry<String, List<String>> w : warnings(devices).entrySet()) {
            int more = w.getValue().size() - 1;
            wrapped(out, "  " + w.getKey() + ": ", w.getValue().get(0) + (more > 0 ? " (and " + more + " more devices)" : ""), run);
        }
        out.println("--detail: each number's evidence and arithmetic; --explain COMPONENT: one component;"
                + " --format html: charts");
        out.flush();
    }

    private static void table(List<DeviceLedger> devices, PrintWriter out) {
        // a component unknown on every device gets one mention, not a column of "?"
        List<String> components = ExplainTextWriter.components(devices).stream().filter(c -> knownSomewhere(devices, c)).toList();
        List<String> unknown = ExplainTextWriter.components(devices).stream().filter(c -> !knownSomewhere(devices, c)).toList();
        List<String> aside = List.of();
        if (width(rows(devices, components)) > WIDTH) {
            // lines that are in no device's sum (peaks, process views, vLLM's lumps) are what
            // --detail is for; the table keeps what the residual is taken against
            aside = components.stream().filter(c -> !countedSomewhere(devices, c)).toList();
            List<String> keep = new ArrayList<>(components);
            keep.removeAll(aside);
            components = keep;
        }
        List<String[]> rows = rows(devices, components);
        boolean[] right = new boolean[rows.get(0).length];
        java.util.Arrays.fill(right, 2, right.length, true);
        out.println("GiB per device; ? = unknown, (x) = shown but not in the sum, residual = used - sum, free = capacity - used");
        String legend = ComponentLabels.legend(components);
        if (!legend.isEmpty()) {
            wrapped(out, "  ", legend, null);
        }
        TextTable.print(rows, right, "  ", out);
        if (!aside.isEmpty()) {
            wrapped(out, "  not in the sum, in --detail: ", String.join(", ", aside), null);
        }
        if (!unknown.isEmpty()) {
            wrapped(out, "  unknown on every device: ", String.join(", ", unknown), null);
        }
    }

    private static int width(List<String[]> rows) {
        int[] w = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        return 2 + java.util.Arrays.stream(w).sum() + 2 * (w.length - 1);
    }

    private static boolean countedSomewhere(List<DeviceLedger> devices, String component) {
        return devices.stream().flatMap(d -> d.entries().stream())
                .anyMatch(e -> e.component().equals(component) && e.known() && e.counted());
    }

    private static List<String[]> rows(List<DeviceLedger> devices, List<String> components) {
        List<String[]> rows = new ArrayList<>();
        List<String> head = new ArrayList<>(List.of("device", "rank", "capacity", "used"));
        components.forEach(c -> head.add(ComponentLabels.shortName(c)));
        head.addAll(List.of("residual", "free"));
        rows.add(head.toArray(String[]::new));
        for (DeviceLedger d : devices) {
            List<String> r = new ArrayList<>(List.of(d.device(), ranks(d), gib(d.capacity().bytes()), gib(d.used().bytes())));
            for (String c : components) {
                r.add(d.entries().stream().filter(e -> e.component().equals(c)).findFirst().map(SummaryTextWriter::cell).orElse(""));
            }
            // nothing counted: the residual is all of used, which reads as "unaccounted" though
            // every line is merely unknown
            r.add(d.countedSum() == null ? "?" : signed(d.residualBytes()));
            r.add(d.capacity().known() && d.used().known() ? gib(d.capacity().bytes() - d.used().bytes()) : "?");
            rows.add(r.toArray(String[]::new));
        }
        return rows;
    }

    private static boolean knownSomewhere(List<DeviceLedger> devices, String component) {
        return devices.stream().flatMap(d -> d.entries().stream()).anyMatch(e -> e.component().equals(component) && e.known());
    }

    /** Check name and status -> the detail of each device where it warns or fails, in device order. */
    private static Map<String, List<String>> warnings(List<DeviceLedger> devices) {
        Map<String, List<String>> w = new LinkedHashMap<>();
        for (DeviceLedger d : devices) {
            for (Check c : d.checks()) {
                if (c.status() == Check.Status.WARN || c.status() == Check.Status.FAIL) {
                    w.computeIfAbsent(c.status().jsonName().toUpperCase(java.util.Locale.ROOT) + " " + c.name(),
                            k -> new ArrayList<>()).add(d.device() + ": " + c.detail());
                }
            }
        }
        return w;
    }

    private static String cell(Entry e) {
        if (!e.known()) {
            return "?";
        }
        String v = io.hbmledger.ledger.Units.gibNumber(e.bytes());
        return e.counted() ? v : "(" + v + ")";
    }

    private static String gib(Long bytes) {
        return bytes == null ? "?" : io.hbmledger.ledger.Units.gibNumber(bytes);
    }

    private static String signed(Long bytes) {
        if (bytes == null) {
            return "?";
        }
        String v = io.hbmledger.ledger.Units.gibNumber(bytes);
        return bytes > 0 ? "+" + v : v;
    }

    private static String ranks(DeviceLedger d) {
        return String.join(",", d.ranks().stream().map(String::valueOf).toList());
    }

    private static void wrapped(PrintWriter out, String first, String text, String run) {
        String indent = "      ";
        List<String> lines = LedgerTextWriter.wrap(ReportHeading.relative(text, run),
                WIDTH - Math.max(first.length(), indent.length()));
        for (int i = 0; i < lines.size(); i++) {
            out.println((i == 0 ? first : indent) + lines.get(i));
        }
    }
}

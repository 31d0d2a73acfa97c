package io.hbmledger.report;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.Observation;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prints evidence for a person: one block per file, one aligned line per observation. */
public final class EvidenceTextWriter {

    public void write(List<EvidenceFile> files, PrintWriter out) {
        for (EvidenceFile f : files) {
            out.printf("%s  [%s]  %d observation%s%n", f.path(), f.format(),
                    f.observations().size(), f.observations().size() == 1 ? "" : "s");
            List<String[]> rows = new ArrayList<>();
            // a CSV's line 1 is its header: its data rows are "row N", as in the ledger and the warnings
            String where = f.format().countsDataRows() ? "row " : "line ";
            for (Observation o : f.observations()) {
                rows.add(new String[] {
                    where + o.line(),
                    o.quantity().contractName(),
                    amount(o),
                    "\"" + (o.text() == null ? "" : o.text()) + "\"",
                    context(o)});
            }
            printAligned(rows, out);
            printParts(f, out);
            for (String w : f.warnings()) {
                out.println("  warning: " + w);
            }
            out.println();
        }
        out.flush();
    }

    /** For a paste: which line ranges were read as what. */
    private static void printParts(EvidenceFile f, PrintWriter out) {
        if (f.parts().isEmpty()) {
            return;
        }
        out.println("  parts:");
        List<String[]> rows = new ArrayList<>();
        for (EvidencePart p : f.parts()) {
            String what = p.read() ? p.format() + ", " + p.observations().size() + " observation"
                    + (p.observations().size() == 1 ? "" : "s")
                    : p.prose() ? "skipped" : "no output a reader knows, skipped";
            if (p.idle() != null) {
                what += ", idle before the server started (line " + p.idle().line() + ": \"" + p.idle().phrase() + "\")";
            }
            if (p.started() != null) {
                what += ", after the server started (line " + p.started().line() + ": \"" + p.started().phrase() + "\")";
            }
            rows.add(new String[] {"    " + p.lines(), p.label(), what});
        }
        printAligned(rows, out);
    }

    static String amount(Observation o) {
        if (o.bytes() != null) {
            return String.format(Locale.ROOT, "%.2f GiB (%d B)", o.bytes() / 1073741824.0, o.bytes());
        }
        double v = o.value();
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    private static String context(Observation o) {
        StringBuilder b = new StringBuilder();
        add(b, "device", o.context().device());
        add(b, "device_id", o.context().deviceId());
        add(b, "process", o.context().process());
        add(b, "pid", o.context().pid());
        add(b, "process_name", o.context().processName());
        add(b, "component", o.context().component());
        add(b, "tokens_per_request", o.context().tokensPerRequest());
        add(b, "samples", o.context().samples());
        add(b, "timestamp_us", o.context().timestampUs());
        add(b, "dp_rank", o.context().dpRank());
        add(b, "confidence", o.context().inferred() ? "inferred" : null);
        return b.toString().trim();
    }

    private static void add(StringBuilder b, String key, Object v) {
        if (v != null) {
            String s = v.toString();
            // a worker label such as "VllmWorkerProcess pid=521" would read as two fields unquoted
            b.append(' ').append(key).append('=').append(s.contains(" ") ? "\"" + s + "\"" : s);
        }
    }

    private static void printAligned(List<String[]> rows, PrintWriter out) {
        TextTable.print(rows, null, "  ", out);
    }

}

package io.hbmledger.report;

import io.hbmledger.verdict.Finding;
import java.io.PrintWriter;
import java.util.List;

/**
 * Prints the findings first, one sentence each with its severity, then what to change,
 * wrapped for a terminal. The figures' sources are in the JSON and in the ledgers below.
 */
final class FindingsTextWriter {

    private static final int WIDTH = 110;

    private FindingsTextWriter() {
    }

    static void write(List<Finding> findings, PrintWriter out) {
        if (findings.isEmpty()) {
            return;
        }
        out.println("findings");
        for (Finding f : findings) {
            String head = "  " + f.severity().jsonName().toUpperCase(java.util.Locale.ROOT) + " " + f.kind().jsonName()
                    + (f.instance() == null ? "" : " [" + f.instance() + "]") + ": ";
            wrap(out, head, f.text(), "      ");
            for (String a : f.advice()) {
                wrap(out, "      -> ", a, "         ");
            }
        }
        out.println();
    }

    private static void wrap(PrintWriter out, String first, String text, String indent) {
        // the head ("ERROR start_refused [log]:") flows with the sentence, as one paragraph
        String margin = first.substring(0, first.length() - first.stripLeading().length());
        List<String> lines = LedgerTextWriter.wrap(first.strip() + " " + text, WIDTH - indent.length());
        for (int i = 0; i < lines.size(); i++) {
            out.println((i == 0 ? margin : indent) + lines.get(i));
        }
    }
}

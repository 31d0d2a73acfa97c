package io.hbmledger.report;

import java.io.PrintWriter;
import java.util.List;

/** Prints rows as aligned columns, two spaces apart; the text writers of every verb share it. */
final class TextTable {

    private TextTable() {
    }

    /**
     * @param right per column, true to right-align (amounts); null aligns every column left
     * @param indent printed before every row
     */
    static void print(List<String[]> rows, boolean[] right, String indent, PrintWriter out) {
        if (rows.isEmpty()) {
            return;
        }
        int[] w = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder(indent);
            for (int i = 0; i < r.length; i++) {
                String gap = " ".repeat(Math.max(0, w[i] - r[i].length()));
                b.append(right != null && right[i] ? gap + r[i] : r[i] + gap);
                if (i < r.length - 1) {
                    b.append("  ");
                }
            }
            out.println(b.toString().stripTrailing());
        }
    }
}

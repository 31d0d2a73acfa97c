package io.hbmledger.report;

import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One stacked bar per device in inline SVG: the counted components, the residual, free memory
 * (capacity - used), with the capacity and the vLLM budget drawn across. What is unknown is
 * drawn hatched with a "?" and never as an empty width: an unknown used leaves everything past
 * the counted sum hatched; unknown components are named under the bar.
 */
final class HtmlBars {

    private static final int LABEL = 150;
    private static final int WIDTH = 1000;
    private static final int ROW = 46;
    private static final int BAR = 24;
    private static final int HEADING = 22;

    private HtmlBars() {
    }

    /**
     * One bar per device, all on one scale. On a multi-node page each node's devices come together
     * under a heading with its name, a bar labelled with the device as its node names it (the full
     * name stays in data-device).
     *
     * @param budgets device key -> the vLLM budget (utilization x total seen) and its arithmetic
     */
    static String svg(List<HtmlReportWriter.NodeGroup> groups, Map<String, HtmlReportWriter.Budget> budgets) {
        long scale = 1;
        int rows = 0;
        int headings = 0;
        for (HtmlReportWriter.NodeGroup g : groups) {
            headings += g.node() == null ? 0 : 1;
            for (DeviceLedger d : g.devices()) {
                rows++;
                scale = Math.max(scale, Math.max(orZero(d.capacity().bytes()), Math.max(orZero(d.used().bytes()), orZero(d.countedSum()))));
            }
        }
        double px = (WIDTH - LABEL - 20) / (double) scale;
        StringBuilder s = new StringBuilder();
        int height = rows * ROW + headings * HEADING + 10;
        s.append("<svg id=\"bars-svg\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height).append("\" role=\"img\">")
                .append("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">")
                .append("<rect width=\"6\" height=\"6\" fill=\"none\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8c959f\" stroke-width=\"2\"/>")
                .append("</pattern></defs>");
        int y = 4;
        for (HtmlReportWriter.NodeGroup g : groups) {
            if (g.node() != null) {
                s.append("<text class=\"node\" data-node=\"").append(Html.esc(g.node())).append("\" x=\"0\" y=\"").append(y + 15)
                        .append("\" font-weight=\"bold\">node ").append(Html.esc(g.node())).append("</text>");
                y += HEADING;
            }
            for (DeviceLedger d : g.devices()) {
                bar(s, d, g.label(d), budgets.get(d.device()), y, px);
                y += ROW;
            }
        }
        return s.append("</svg>").toString();
    }

    private static void bar(StringBuilder s, DeviceLedger d, String label, HtmlReportWriter.Budget budget, int y, double px) {
        s.append("<g class=\"bar\" data-device=\"").append(Html.esc(d.device())).append("\">");
        s.append("<text x=\"0\" y=\"").append(y + 16).append("\">").append(Html.esc(label)).append("</text>");
        double x = LABEL;
        List<String> unknown = new ArrayList<>();
        for (Entry e : d.entries()) {
            if (!e.known()) {
                unknown.add(e.component());
            } else if (e.counted() && e.bytes() > 0) {
                double w = e.bytes() * px;
                segment(s, "seg", Html.colour(e.component()), x, y, w, d.device(), e.component(), e.bytes(),
                        e.component() + " " + Units.gib(e.bytes()) + " (" + e.confidence().jsonName() + ")",
                        evidence(e.sources(), e.note(), e.arithmetic()));
                x += w;
            }
        }
        Long used = d.used().bytes();
        Long cap = d.capacity().bytes();
        if (used == null) {
            double end = cap == null ? x + 80 : LABEL + cap * px;
            segment(s, "seg unknown", null, x, y, Math.max(40, end - x), d.device(), "unknown", null,
                    "unknown: device used at " + d.moment() + " was not measured, so residual and free are unknown",
                    d.used().note());
            s.append("<text x=\"").append(Html.num(x + 4)).append("\" y=\"").append(y + 16).append("\">?</text>");
        } else {
            Long residual = d.residualBytes();
            if (residual != null && residual > 0) {
                double w = residual * px;
                segment(s, "seg", Html.colour("residual"), x, y, w, d.device(), "residual", residual,
                        "residual " + Units.gib(residual) + " (used - counted; may hold: "
                                + (unknown.isEmpty() ? "nothing named" : String.join(", ", unknown)) + ")", d.residualNote());
                x += w;
            } else if (residual != null && residual < 0) {
                // counted more than used: the overlap is outlined to the left of the end of the counted sum
                double w = -residual * px;
                s.append("<rect class=\"overcount\" x=\"").append(Html.num(x - w)).append("\" y=\"").append(y)
                        .append("\" width=\"").append(Html.num(w)).append("\" height=\"").append(BAR)
                        .append("\" data-component=\"residual\" data-bytes=\"").append(residual).append("\"><title>")
                        .append(Html.esc("residual " + Units.gib(residual) + ": the counted lines exceed used")).append("</title></rect>");
                x = LABEL + used * px;
            }
            if (cap != null && cap > used) {
                segment(s, "seg free", null, x, y, (cap - used) * px, d.device(), "free", cap - used,
                        "free " + Units.gib(cap - used) + " (capacity - used)", null);
            }
        }
        if (cap != null) {
            double cx = LABEL + cap * px;
            s.append("<line class=\"cap\" x1=\"").append(Html.num(cx)).append("\" x2=\"").append(Html.num(cx)).append("\" y1=\"")
                    .append(y - 3).append("\" y2=\"").append(y + BAR + 3).append("\"><title>")
                    .append(Html.esc("capacity " + Units.gib(cap))).append("</title></line>");
        }
        if (budget != null) {
            double bx = LABEL + budget.bytes() * px;
            s.append("<line class=\"budget\" data-bytes=\"").append(budget.bytes()).append("\" x1=\"").append(Html.num(bx))
                    .append("\" x2=\"").append(Html.num(bx)).append("\" y1=\"").append(y - 3).append("\" y2=\"").append(y + BAR + 3)
                    .append("\"><title>").append(Html.esc("vLLM budget " + Units.gib(budget.bytes()) + " = " + budget.arithmetic()))
                    .append("</title></line>");
        }
        s.append("<text class=\"unknowns\" x=\"").append(LABEL).append("\" y=\"").append(y + BAR + 14).append("\">")
                .append(Html.esc(unknown.isEmpty() ? "" : "? unknown: " + String.join(", ", unknown))).append("</text>");
        s.append("</g>");
    }

    private static void segment(StringBuilder s, String cls, String fill, double x, int y, double w, String device,
                                String component, Long bytes, String title, String evidence) {
        s.append("<rect class=\"").append(cls).append("\" x=\"").append(Html.num(x)).append("\" y=\"").append(y)
                .append("\" width=\"").append(Html.num(Math.max(w, 1))).append("\" height=\"").append(BAR).append('"');
        if (fill != null) {
            s.append(" fill=\"").append(fill).append('"');
        }
        s.append(" data-device=\"").append(Html.esc(device)).append("\" data-component=\"").append(Html.esc(component)).append('"');
        if (bytes != null) {
            s.append(" data-bytes=\"").append(bytes).append('"');
        }
        s.append(" data-evidence=\"").append(Html.esc(title + (evidence == null || evidence.isEmpty() ? "" : "\n" + evidence)))
                .append("\"><title>").append(Html.esc(title)).append("</title></rect>");
    }

    /** Sources as written, the note and the arithmetic: what a click shows. */
    static String evidence(List<Source> sources, String note, String arithmetic) {
        StringBuilder b = new StringBuilder();
        for (Source src : sources) {
            b.append(b.length() == 0 ? "" : "\n").append(src.shortForm());
        }
        if (note != null && !note.isEmpty()) {
            b.append(b.length() == 0 ? "" : "\n").append(note);
        }
        if (arithmetic != null) {
            b.append("\n= ").append(arithmetic);
        }
        return b.toString();
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }
}

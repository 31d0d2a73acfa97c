package io.hbmledger.report;

import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Units;
import java.util.List;

/**
 * The nodes table of a multi-node page: per node its status, devices, global ranks, and the sums
 * of used, counted and residual over its devices. A sum over a device whose figure is unknown is
 * unknown ({@code ?}), never a partial sum shown as if whole.
 */
final class HtmlNodes {

    private HtmlNodes() {
    }

    static String table(List<HtmlReportWriter.NodeGroup> groups) {
        StringBuilder h = new StringBuilder("<h2>Nodes</h2>\n<div class=\"wrap\"><table id=\"nodes\"><thead><tr><th>node</th>"
                + "<th>status</th><th>devices</th><th>ranks</th><th>used</th><th>counted</th><th>residual</th></tr></thead><tbody>\n");
        for (HtmlReportWriter.NodeGroup g : groups) {
            List<DeviceLedger> d = g.devices();
            List<Integer> ranks = d.stream().flatMap(x -> x.ranks().stream()).sorted().toList();
            h.append("<tr data-node=\"").append(Html.esc(g.node())).append("\"><td>").append(Html.esc(g.node())).append("</td><td>")
                    .append(Html.esc(g.status() == null ? "" : g.status())).append("</td><td class=\"num\">").append(d.size())
                    .append("</td><td>").append(ranks(ranks)).append("</td>");
            sum(h, "used", d.stream().map(x -> x.used().bytes()).toList());
            sum(h, "counted", d.stream().map(DeviceLedger::countedSum).toList());
            sum(h, "residual", d.stream().map(DeviceLedger::residualBytes).toList());
            h.append("</tr>\n");
        }
        return h.append("</tbody></table></div>\n").toString();
    }

    /** 0-3 when the ranks follow each other, else each one: 0,2,4. */
    private static String ranks(List<Integer> ranks) {
        if (ranks.isEmpty()) {
            return "-";
        }
        int first = ranks.get(0);
        int last = ranks.get(ranks.size() - 1);
        boolean contiguous = last - first == ranks.size() - 1 && ranks.stream().distinct().count() == ranks.size();
        return contiguous && ranks.size() > 2 ? first + "-" + last
                : String.join(",", ranks.stream().map(String::valueOf).toList());
    }

    private static void sum(StringBuilder h, String what, List<Long> values) {
        boolean known = !values.isEmpty() && values.stream().allMatch(v -> v != null);
        long total = known ? values.stream().mapToLong(Long::longValue).sum() : 0;
        h.append("<td class=\"num").append(known ? "\" data-bytes=\"" + total + "\"" : " unknown\"")
                .append(" data-component=\"").append(what).append("\">").append(known ? Units.gib(total) : "?").append("</td>");
    }
}

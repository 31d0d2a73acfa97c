package io.hbmledger.report;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.Units;
import io.hbmledger.verdict.Fact;
import io.hbmledger.verdict.Figure;
import io.hbmledger.verdict.Finding;
import io.hbmledger.verdict.RunFacts;
import io.hbmledger.verdict.ServerFacts;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code analyze --format html} and report.html: one self-contained page (style and script
 * inlined, no network) with the findings, a stacked bar per device, the timeline, every number
 * with its confidence and evidence, the deployment and the checks. Every text that came from
 * evidence is escaped ({@link Html#esc}).
 */
public final class HtmlReportWriter {

    /** The report's name inside the run directory, beside report.json. */
    public static final String FILE_NAME = "report.html";

    /** A vLLM instance's memory budget on a device: utilization x the total the engine saw. */
    public record Budget(long bytes, String arithmetic) {
    }

    /**
     * The devices of one node of a multi-node run, together on the page under its name; on a
     * single-node page one group with no node.
     *
     * @param node the node's name in the run, null on a single-node page
     * @param status the node's own ledger status (complete, incomplete, failed), null on a single-node page
     */
    public record NodeGroup(String node, String status, List<DeviceLedger> devices) {
        public NodeGroup {
            devices = List.copyOf(devices);
        }

        NodeGroup(String node, List<DeviceLedger> devices) {
            this(node, null, devices);
        }

        /** The device as its node names it ({@code npu:0/chip:0}); the full name on a single-node page. */
        String label(DeviceLedger d) {
            return node != null && d.device().startsWith(node + "/") ? d.device().substring(node.length() + 1) : d.device();
        }
    }

    /** The budget of every instance whose utilization and total are known, by device. */
    public static Map<String, Budget> budgets(RunFacts facts) {
        Map<String, Budget> out = new LinkedHashMap<>();
        for (ServerFacts s : facts.servers()) {
            Figure u = s.get(Fact.UTILIZATION).orElse(null);
            Figure total = s.get(Fact.TOTAL_SEEN).orElse(null);
            if (u != null && total != null && u.value() != null && total.bytes() != null) {
                long bytes = (long) Math.floor(u.value() * total.bytes());
                for (String d : s.devices()) {
                    out.putIfAbsent(d, new Budget(bytes, u.value() + " x " + Units.gib(total.bytes()) + " (" + s.instance() + ")"));
                }
            }
        }
        return out;
    }

    /**
     * @param run the run directory as named by the user, or null
     * @param source run.json {@code source}, or null
     */
    public String toHtml(Ledger ledger, List<Finding> findings, Layout layout, String run, String source,
                         Timeline timeline, Map<String, Budget> budgets) {
        return page(ledger, List.of(new NodeGroup(null, ledger.devices())), findings, layout, run, source, timeline, budgets);
    }

    /**
     * The page of a multi-node run: a table of the nodes, then the bars and the numbers grouped by
     * node (each node's devices together under its name, labelled as the node names them).
     *
     * @param merged the cluster's ledger (devices named {@code NODE/npu:N/chip:M}), for the status and the reasons
     * @param nodes each node's devices, in node order
     */
    public String toClusterHtml(Ledger merged, List<NodeGroup> nodes, List<Finding> findings, Layout layout, String run,
                                Timeline timeline, Map<String, Budget> budgets) {
        return page(merged, nodes, findings, layout, run, null, timeline, budgets);
    }

    private String page(Ledger ledger, List<NodeGroup> groups, List<Finding> findings, Layout layout, String run, String source,
                        Timeline timeline, Map<String, Budget> budgets) {
        StringBuilder h = new StringBuilder(64 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">")
                .append("<meta name=\"color-scheme\" content=\"light dark\">")
                .append("<title>HBM ledger").append(run == null ? "" : " - " + Html.esc(run)).append("</title>\n<style>")
                .append(Html.resource("report.css")).append("</style></head><body>\n");
        h.append("<h1>HBM ledger").append(run == null ? "" : " for <span class=\"mono\">" + Html.esc(run) + "</span>")
                .append(" <span id=\"status\" class=\"status status-").append(ledger.status().jsonName()).append("\">")
                .append(ledger.status().jsonName()).append("</span></h1>\n");
        String deployment = ReportHeading.deployment(layout);
        if (groups.get(0).node() != null) {
            // the layout is the first node's: each node runs its own copy of the deployment
            deployment = groups.size() + " nodes, " + ledger.devices().size() + " devices; on node " + groups.get(0).node() + ": "
                    + deployment.replaceFirst("^deployment: ", "");
        }
        h.append("<p id=\"deployment\">").append(Html.esc(deployment)).append("</p>\n");
        if (source != null && !source.isBlank()) {
            h.append("<p class=\"muted\">evidence from: ").append(Html.esc(source)).append("</p>\n");
        }
        findings(h, findings);
        if (groups.get(0).node() != null) {
            h.append(HtmlNodes.table(groups));
        }
        h.append("<h2>Memory per device</h2>\n<p class=\"muted\">Click a segment for its evidence. Black line: capacity;"
                + " dashed red: vLLM budget (utilization x total); hatched: unknown (never drawn as 0); pink: residual"
                + " (used - counted); pale: free (capacity - used).</p>\n<div class=\"wrap\" id=\"bars\">")
                .append(HtmlBars.svg(groups, budgets)).append("</div>\n");
        h.append("<div class=\"legend\">");
        for (String c : ExplainTextWriter.components(ledger)) {
            h.append("<span><i style=\"background:").append(Html.colour(c)).append("\"></i>").append(Html.esc(c)).append("</span>");
        }
        h.append("<span><i style=\"background:").append(Html.colour("residual")).append("\"></i>residual</span></div>\n");
        h.append("<h2>Timeline</h2>\n");
        if (timeline.isEmpty()) {
            h.append("<p id=\"timeline\" class=\"muted\">No timed samples in the evidence.</p>\n");
        } else {
            h.append("<p class=\"muted\">").append(timeline.timed() ? "Device memory used over the run"
                    : "Device memory used at each moment (the run gives no times)")
                    .append("; msprof values at the run's instants and at each device's peak.</p>\n<div class=\"wrap\" id=\"timeline\">")
                    .append(HtmlTimeline.svg(timeline)).append("</div>").append(HtmlTimeline.legend(timeline)).append('\n');
        }
        numbers(h, ledger, groups);
        checks(h, ledger);
        h.append("<div id=\"evidence\" class=\"mono\">Click a number, a segment or a point to see its evidence.</div>\n");
        h.append("<script>").append(Html.resource("report.js")).append("</script>\n</body></html>\n");
        return h.toString();
    }

    private static void findings(StringBuilder h, List<Finding> findings) {
        h.append("<h2>Findings</h2>\n<ul class=\"findings\" id=\"findings\">");
        if (findings.isEmpty()) {
            h.append("<li>No findings.</li>");
        }
        for (Finding f : findings) {
            h.append("<li class=\"sev-").append(f.severity().jsonName()).append("\"><span class=\"sev\">")
                    .append(f.severity().jsonName()).append("</span><b>").append(Html.esc(f.kind().jsonName())).append("</b>")
                    .append(f.instance() == null ? "" : " <span class=\"muted\">[" + Html.esc(f.instance()) + "]</span>")
                    .append(": ").append(Html.esc(f.text()));
            for (String a : f.advice()) {
                h.append("<br>&rarr; ").append(Html.esc(a));
            }
            h.append("</li>");
        }
        h.append("</ul>\n");
    }

    private static void numbers(StringBuilder h, Ledger ledger, List<NodeGroup> groups) {
        h.append("<h2>Numbers (GiB)</h2>\n<div class=\"wrap\"><table id=\"numbers\"><thead><tr><th>device</th><th>moment</th>")
                .append("<th>capacity</th><th>used</th>");
        List<String> components = ExplainTextWriter.components(ledger);
        components.forEach(c -> h.append("<th>").append(Html.esc(c)).append("</th>"));
        h.append("<th>residual</th><th>free</th></tr></thead>\n");
        for (NodeGroup g : groups) {
            h.append(g.node() == null ? "<tbody>" : "<tbody data-node=\"" + Html.esc(g.node()) + "\"><tr class=\"node-head\"><th colspan=\""
                    + (components.size() + 6) + "\">node " + Html.esc(g.node()) + "</th></tr>").append('\n');
            numberRows(h, g, components);
            h.append("</tbody>\n");
        }
        h.append("</table></div>\n");
    }

    private static void numberRows(StringBuilder h, NodeGroup g, List<String> components) {
        for (DeviceLedger d : g.devices()) {
            h.append("<tr data-device=\"").append(Html.esc(d.device())).append("\"><td>").append(Html.esc(g.label(d)))
                    .append("</td><td>").append(Html.esc(d.moment())).append("</td>");
            cell(h, "capacity", d.capacity().bytes(), d.capacity().confidence().jsonName(), true,
                    d.capacity().source() == null ? d.capacity().note()
                            : d.capacity().source().shortForm() + "\n" + d.capacity().note());
            cell(h, "used", d.used().bytes(), d.used().confidence().jsonName(), true,
                    d.used().source() == null ? d.used().note() : HtmlBars.evidence(List.of(d.used().source()), d.used().note(), d.used().arithmetic()));
            for (String c : components) {
                Entry e = d.entries().stream().filter(x -> x.component().equals(c)).findFirst().orElse(null);
                if (e == null) {
                    h.append("<td></td>");
                } else {
                    cell(h, c, e.bytes(), e.confidence().jsonName(), e.counted(), HtmlBars.evidence(e.sources(), e.note(), e.arithmetic()));
                }
            }
            cell(h, "residual", d.residualBytes(), d.residualBytes() == null ? "unknown" : "inferred", true, d.residualNote());
            Long free = d.capacity().known() && d.used().known() ? d.capacity().bytes() - d.used().bytes() : null;
            cell(h, "free", free, free == null ? "unknown" : "inferred", true, "capacity - used");
            h.append("</tr>\n");
        }
    }

    private static void cell(StringBuilder h, String component, Long bytes, String confidence, boolean counted, String evidence) {
        String shown = bytes == null ? "?" : counted ? Units.gibNumber(bytes) : "(" + Units.gibNumber(bytes) + ")";
        String what = component + ": " + (bytes == null ? "unknown" : Units.gib(bytes)) + ", " + confidence
                + (counted ? "" : ", not in the sum");
        h.append("<td class=\"num").append(bytes == null ? " unknown" : "").append("\" data-component=\"").append(Html.esc(component))
                .append("\" data-confidence=\"").append(Html.esc(confidence)).append('"')
                .append(bytes == null ? "" : " data-bytes=\"" + bytes + "\"")
                .append(" title=\"").append(Html.esc(what)).append("\" data-evidence=\"")
                .append(Html.esc(what + (evidence == null ? "" : "\n" + evidence))).append("\">").append(shown).append("</td>");
    }

    private static void checks(StringBuilder h, Ledger ledger) {
        h.append("<h2>Checks and status</h2>\n<ul id=\"reasons\">");
        for (String r : ledger.incompleteReasons()) {
            h.append("<li>").append(ledger.status() == Ledger.Status.FAILED ? "why: " : "incomplete: ").append(Html.esc(r)).append("</li>");
        }
        for (String n : ledger.notes()) {
            h.append("<li>note: ").append(Html.esc(n)).append("</li>");
        }
        h.append("</ul>\n<div class=\"wrap\"><table id=\"checks\"><thead><tr><th>device</th><th>check</th><th>status</th><th>detail</th></tr></thead><tbody>");
        for (DeviceLedger d : ledger.devices()) {
            for (Check c : d.checks()) {
                h.append("<tr><td>").append(Html.esc(d.device())).append("</td><td>").append(Html.esc(c.name())).append("</td><td>")
                        .append(c.status().jsonName()).append("</td><td>").append(Html.esc(c.detail())).append("</td></tr>");
            }
        }
        h.append("</tbody></table></div>\n");
    }
}

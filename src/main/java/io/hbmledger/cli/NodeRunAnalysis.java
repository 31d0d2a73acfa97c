package io.hbmledger.cli;

import io.hbmledger.ledger.Attribution;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.nodes.ClusterLedger;
import io.hbmledger.load.BadInputException;
import io.hbmledger.load.NodeRuns;
import io.hbmledger.report.HtmlReportWriter;
import io.hbmledger.report.LedgerJsonWriter;
import io.hbmledger.report.LedgerTextWriter;
import io.hbmledger.report.NodeSummaryWriter;
import io.hbmledger.report.ReportFile;
import io.hbmledger.report.Timeline;
import io.hbmledger.report.TimelineBuilder;
import io.hbmledger.verdict.DeviceFacts;
import io.hbmledger.verdict.Figure;
import io.hbmledger.verdict.Finding;
import io.hbmledger.verdict.NodeFacts;
import io.hbmledger.verdict.RunFacts;
import io.hbmledger.verdict.RunFactsBuilder;
import io.hbmledger.verdict.ServerFacts;
import io.hbmledger.verdict.Verdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code analyze} of a multi-node run: each node's run attributed on its own evidence, its devices
 * named {@code NODE/npu:N/chip:M} and its ranks made global; the summary grouped by node, each
 * node's ledger, and the findings that compare nodes. report.json holds every device of the cluster;
 * report.html (and {@code --format html}) groups the devices by node.
 */
final class NodeRunAnalysis {

    /** What the analysis printed and the ledger it judged, for --fail-on. */
    record Result(String shown, Ledger ledger, List<Finding> findings) {
    }

    private NodeRunAnalysis() {
    }

    static Result run(Path dir, AnalyzeFormat format, boolean allDevices, boolean noWrite, List<Figure> peerUtilizations,
                      PrintWriter err) throws IOException, BadInputException {
        NodeRuns.Loaded loaded = NodeRuns.load(dir, w -> err.println("hbm-ledger: warning: " + w));
        List<ClusterLedger.NodeLedger> placed = new ArrayList<>();
        List<NodeFacts> facts = new ArrayList<>();
        List<Finding> findings = new ArrayList<>();
        List<Timeline> timelines = new ArrayList<>();
        Map<String, HtmlReportWriter.Budget> budgets = new LinkedHashMap<>();
        StringWriter perNode = new StringWriter();
        PrintWriter nodeOut = new PrintWriter(perNode);
        for (NodeRuns.NodeRun n : loaded.nodes()) {
            var m = n.run().runDir().manifest();
            Ledger own = Attribution.standard().attribute(n.run().evidence())
                    .withCollection(m.status(), m.incompleteReasons());
            ClusterLedger.NodeLedger node = ClusterLedger.place(n.node(), n.firstRank(), own);
            placed.add(node);
            RunFacts rf = named(n.node(), RunFactsBuilder.build(n.run().evidence(), own, peerUtilizations));
            budgets.putAll(HtmlReportWriter.budgets(rf));
            timelines.add(TimelineBuilder.build(n.run().evidence(), own, m.moments()));
            facts.add(new NodeFacts(n.node(), rf));
            List<Finding> nodeFindings = Verdict.findings(rf);
            findings.addAll(nodeFindings);
            nodeOut.println("== node " + n.node() + " (" + n.run().runDir().dir() + ") ==");
            new LedgerTextWriter(allDevices).write(node.ledger(), nodeFindings, n.run().evidence().layout(),
                    n.run().runName(), m.source(), nodeOut);
        }
        nodeOut.flush();
        ClusterLedger cluster = new ClusterLedger(placed);
        List<Finding> across = Verdict.acrossNodes(facts);
        List<Finding> all = new ArrayList<>(across);
        all.addAll(findings);
        Ledger merged = cluster.merged(loaded.missing()).withCollection(loaded.top().status(), loaded.top().incompleteReasons());
        var layout = loaded.nodes().get(0).run().evidence().layout();
        String report = new LedgerJsonWriter().toJson(merged, all, layout, dir.toString());
        List<HtmlReportWriter.NodeGroup> groups = placed.stream()
                .map(p -> new HtmlReportWriter.NodeGroup(p.node(), p.ledger().status().jsonName(), p.ledger().devices())).toList();
        String page = new HtmlReportWriter().toClusterHtml(merged, groups, all, layout, dir.toString(),
                Timeline.ofNodes(loaded.nodes().stream().map(NodeRuns.NodeRun::node).toList(), timelines), budgets);
        if (!noWrite) {
            ReportFile.write(dir, report).ifPresent(w -> err.println("hbm-ledger: warning: " + w));
            ReportFile.write(dir, HtmlReportWriter.FILE_NAME, page).ifPresent(w -> err.println("hbm-ledger: warning: " + w));
        }
        if (format == AnalyzeFormat.json) {
            return new Result(report, merged, all);
        }
        if (format == AnalyzeFormat.html) {
            return new Result(page, merged, all);
        }
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        new NodeSummaryWriter().write(dir.toString(), merged.status().jsonName(), cluster, loaded.missing(), across, out);
        out.flush();
        return new Result(text + perNode.toString(), merged, all);
    }

    /**
     * The node's facts with its devices named across the cluster, so findings name {@code NODE/npu:N/chip:M},
     * and its servers too ({@code NODE/serve.log}): every node's log may have the same name.
     */
    private static RunFacts named(String node, RunFacts f) {
        List<DeviceFacts> devices = f.devices().stream().map(d -> new DeviceFacts(ClusterLedger.deviceName(node, d.device()),
                d.model(), d.capacity(), d.used(), d.processes(), d.deployed(), d.sample())).toList();
        List<ServerFacts> servers = f.servers().stream().map(s -> new ServerFacts(node + "/" + s.instance(), s.engine(), s.rank(),
                s.devices().stream().map(d -> ClusterLedger.deviceName(node, d)).toList(), s.facts(), s.refusal(), s.kvRefusal(), s.oom())).toList();
        return new RunFacts(servers, devices, f.peerUtilizations(), f.accelerator(), f.serverPids(), f.otherServices(),
                f.containers(), f.allocatorSettings());
    }
}

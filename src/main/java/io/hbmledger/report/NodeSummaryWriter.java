package io.hbmledger.report;

import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.nodes.ClusterLedger;
import io.hbmledger.verdict.Finding;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The summary of a multi-node run, grouped by node: one row per device (named {@code NODE/npu:N/chip:M})
 * with its global ranks, used, counted and residual, the node's rows together; then the findings
 * that compare nodes. Unknown amounts print as {@code unknown}, never 0.
 */
public final class NodeSummaryWriter {

    public void write(String run, String status, ClusterLedger cluster, List<String> missing, List<Finding> acrossNodes,
                      PrintWriter out) {
        int devices = cluster.nodes().stream().mapToInt(n -> n.ledger().devices().size()).sum();
        out.println("Multi-node run " + run + ": " + cluster.nodes().size() + " nodes, " + devices + " devices, status " + status);
        missing.forEach(m -> out.println("  node left out: " + m));
        out.println();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"node", "device", "ranks", "used", "counted", "residual"});
        for (ClusterLedger.NodeLedger n : cluster.nodes()) {
            for (DeviceLedger d : n.ledger().devices()) {
                rows.add(new String[] {n.node(), d.device(), ranks(d.ranks()),
                        d.used().known() ? Units.gib(d.used().bytes()) : "unknown",
                        d.countedSum() == null ? "unknown" : Units.gib(d.countedSum()),
                        d.residualBytes() == null ? "unknown" : Units.gib(d.residualBytes())});
            }
        }
        TextTable.print(rows, new boolean[] {false, false, false, true, true, true}, "  ", out);
        out.println();
        if (!acrossNodes.isEmpty()) {
            out.println("Across nodes:");
            for (Finding f : acrossNodes) {
                out.println("  " + f.severity().jsonName() + " " + f.kind().jsonName() + ": " + f.text());
                f.advice().forEach(a -> out.println("    -> " + a));
            }
            out.println();
        }
    }

    private static String ranks(List<Integer> ranks) {
        return ranks.isEmpty() ? "-" : String.join(",", ranks.stream().map(String::valueOf).toList());
    }
}

package io.hbmledger.verdict;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.Units;
import java.util.ArrayList;
import java.util.List;

/**
 * A node whose ranks use more than their peers: in a deployment where every node runs the same
 * share (TP within the node, DP or PP across), each device should hold about the same. A node's
 * mean used memory per device above the median of the other nodes' means by more than
 * {@link #MARGIN_BYTES} and {@link #MARGIN_SHARE} is named, with both means and their samples.
 * Typical causes: another process on that node, a different build or config, a rank with a larger
 * expert or pipeline share.
 */
final class NodeComparisonRule {

    /** Below this a difference is noise of allocator caches and runtime buffers. */
    static final long MARGIN_BYTES = Units.GIB;
    static final double MARGIN_SHARE = 0.05;

    private NodeComparisonRule() {
    }

    /** A node's mean used bytes per device over its devices with a known sample, or null when none has one. */
    private record Mean(String node, Long bytes, int devices, List<Source> sources) {
    }

    static List<Finding> apply(List<NodeFacts> nodes) {
        List<Mean> means = nodes.stream().map(NodeComparisonRule::mean).filter(m -> m.bytes() != null).toList();
        List<Finding> out = new ArrayList<>();
        if (means.size() < 2) {
            return out;
        }
        for (Mean m : means) {
            List<Long> peers = means.stream().filter(p -> p != m).map(Mean::bytes).sorted().toList();
            long median = peers.size() % 2 == 1 ? peers.get(peers.size() / 2)
                    : (peers.get(peers.size() / 2 - 1) + peers.get(peers.size() / 2)) / 2;
            long over = m.bytes() - median;
            if (over <= MARGIN_BYTES || over <= median * MARGIN_SHARE) {
                continue;
            }
            Figure own = Figure.bytes("node_used_per_device", m.bytes(), Confidence.INFERRED,
                    "mean of " + m.devices() + " device samples of node " + m.node(), m.sources());
            Figure peer = Figure.bytes("peers_used_per_device", median, Confidence.INFERRED,
                    "median of the other " + peers.size() + " nodes' means", List.of());
            Figure diff = Figure.bytes("excess_per_device", over, Confidence.INFERRED,
                    Units.gib(m.bytes()) + " - " + Units.gib(median), List.of());
            String text = "node " + m.node() + "'s ranks use " + Units.gib(m.bytes()) + " per device, " + Units.gib(over)
                    + " more than their peers (median " + Units.gib(median) + " over " + peers.size() + " other nodes).";
            List<String> devices = nodes.stream().filter(n -> n.node().equals(m.node()))
                    .flatMap(n -> n.facts().devices().stream()).map(DeviceFacts::device).toList();
            out.add(new Finding(Finding.Kind.NODE_IMBALANCE, Finding.Severity.WARN, devices, null, text,
                    List.of(own, peer, diff),
                    List.of("Compare that node's ledger with a peer's: another process on its devices, a different"
                            + " vLLM / CANN build or config, or a larger expert or pipeline share on its ranks.")));
        }
        return out;
    }

    private static Mean mean(NodeFacts n) {
        long sum = 0;
        int count = 0;
        List<Source> sources = new ArrayList<>();
        for (DeviceFacts d : n.facts().devices()) {
            if (d.used() != null && d.used().known() && d.used().bytes() != null) {
                sum += d.used().bytes();
                count++;
                sources.addAll(d.used().sources());
            }
        }
        return new Mean(n.node(), count == 0 ? null : sum / count, count, sources);
    }
}

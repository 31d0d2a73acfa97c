package io.hbmledger.ledger.nodes;

import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Ledger;
import java.util.ArrayList;
import java.util.List;

/**
 * One ledger per device across the nodes of a deployment: each node's ledger, attributed on its
 * own evidence, with its devices named {@code NODE/npu:N/chip:M} and its workers' local ranks
 * turned into global ranks (local rank + the node's first rank). Numbers are not touched.
 */
public record ClusterLedger(List<NodeLedger> nodes) {

    /**
     * One node's ledger, devices and ranks already named across the cluster.
     *
     * @param firstRank the global rank of the node's local rank 0
     */
    public record NodeLedger(String node, int firstRank, Ledger ledger) {
    }

    public ClusterLedger {
        nodes = List.copyOf(nodes);
    }

    /** A node's own ledger placed in the cluster: devices prefixed with the node, ranks shifted to global. */
    public static NodeLedger place(String node, int firstRank, Ledger own) {
        List<DeviceLedger> devices = new ArrayList<>();
        for (DeviceLedger d : own.devices()) {
            devices.add(new DeviceLedger(deviceName(node, d.device()), d.deviceId(),
                    d.ranks().stream().map(r -> r + firstRank).toList(), d.moment(), d.capacity(), d.used(), d.entries(),
                    d.residualBytes(), d.residualNote(), d.checks()));
        }
        return new NodeLedger(node, firstRank, new Ledger(own.status(), own.incompleteReasons(), devices,
                own.processLevel(), own.notes()));
    }

    /** {@code NODE/npu:0/chip:0}: the node first, then the device as its own run names it. */
    public static String deviceName(String node, String device) {
        return node + "/" + device;
    }

    /**
     * The cluster as one ledger: every node's devices in node order; complete only when every node
     * is, failed when every node failed; each node's reasons and notes prefixed with its name.
     */
    public Ledger merged(List<String> missingNodes) {
        List<DeviceLedger> devices = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<io.hbmledger.ledger.ProcessLevelEntry> processLevel = new ArrayList<>();
        boolean allFailed = true;
        boolean anyShort = !missingNodes.isEmpty();
        for (String m : missingNodes) {
            reasons.add("node left out: " + m);
        }
        for (NodeLedger n : nodes) {
            devices.addAll(n.ledger().devices());
            n.ledger().incompleteReasons().forEach(r -> reasons.add("node " + n.node() + ": " + r));
            n.ledger().notes().forEach(r -> notes.add("node " + n.node() + ": " + r));
            processLevel.addAll(n.ledger().processLevel());
            allFailed &= n.ledger().status() == Ledger.Status.FAILED;
            anyShort |= n.ledger().status() != Ledger.Status.COMPLETE;
        }
        Ledger.Status s = allFailed ? Ledger.Status.FAILED : anyShort ? Ledger.Status.INCOMPLETE : Ledger.Status.COMPLETE;
        return new Ledger(s, reasons, devices, processLevel, notes);
    }
}

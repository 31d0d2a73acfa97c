package io.hbmledger.collect.nodes;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.PhaseGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The meeting point of the nodes of one deployment: a node arriving at a named point waits until
 * every node still running arrived there too. A node that ends (complete, failed, dropped out)
 * leaves, so its peers never wait for it again; a peer that is late beyond {@code patience} is
 * given up on once (named in {@link #late()}), so that one hung node cannot hold the others' evidence.
 * A node refused in preflight stops the others at their next point: no node starts a server
 * for a deployment that cannot run whole.
 */
final class NodeGate {

    private final Duration patience;
    private final Set<String> live = new LinkedHashSet<>();
    private final Map<String, Set<String>> arrived = new HashMap<>();
    private final List<String> late = new ArrayList<>();
    private String refusal;

    NodeGate(List<String> nodes, Duration patience) {
        this.live.addAll(nodes);
        this.patience = patience;
    }

    /** The gate as seen by one node. */
    PhaseGate forNode(String node) {
        return point -> arrive(node, point);
    }

    synchronized void arrive(String node, String point) {
        if (refusal != null) {
            throw new PhaseGate.PeerRefused(refusal);
        }
        Set<String> here = arrived.computeIfAbsent(point, p -> new LinkedHashSet<>());
        here.add(node);
        notifyAll();
        long deadline = System.nanoTime() + patience.toNanos();
        while (!here.containsAll(live) && refusal == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                List<String> missing = live.stream().filter(n -> !here.contains(n)).toList();
                late.add(point + ": " + node + " went on without " + String.join(", ", missing) + " after "
                        + patience.toSeconds() + " s");
                live.removeAll(missing);
                notifyAll();
                return;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CollectException("interrupted while waiting for the other nodes at " + point, e);
            }
        }
        if (refusal != null) {
            throw new PhaseGate.PeerRefused(refusal);
        }
    }

    /** The node's collection ended: its peers stop waiting for it. */
    synchronized void leave(String node) {
        live.remove(node);
        notifyAll();
    }

    /** A node was refused: every other node stops at its next meeting point. */
    synchronized void refuse(String why) {
        if (refusal == null) {
            refusal = why;
        }
        notifyAll();
    }

    /** The points where a node went on without a late peer, one line each. */
    synchronized List<String> late() {
        return List.copyOf(late);
    }
}

package io.hbmledger.collect.nodes.ray;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.Host;
import io.hbmledger.collect.nodes.Node;
import io.hbmledger.collect.nodes.NodeRole;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The nodes of a running Ray cluster, asked on its head with Ray's own CLI (no Ray library here):
 * {@code ray list nodes --format json} (Ray 2.x with ray[default]), else {@code ray status -v}
 * (see {@link RayNodesParser} for the formats). Only ALIVE nodes are kept; when Ray does not say
 * which node is the head, the head is the node whose address the head host itself has
 * ({@code hostname -I}).
 */
public final class RayDiscovery {

    /** The state API lists 100 nodes unless told otherwise; 64 x 16 NPU clusters and more fit under this. */
    static final String LIMIT = "10000";

    /**
     * What discovery found.
     *
     * @param head the head node (alive)
     * @param workers the other alive nodes, in Ray's order
     * @param dead nodes Ray lists as DEAD (left out of the run, named in its log)
     * @param command the Ray command whose output was read
     */
    public record Cluster(RayNode head, List<RayNode> workers, List<RayNode> dead, String command) {
    }

    /** Reaches a node at the address Ray gave (over SSH on a real cluster). */
    public interface HostAt {
        Host at(String ip) throws IOException;
    }

    /** Makes the run's node for a host in a role (its name, executions, runtime directory). */
    public interface NodeOf {
        Node of(Host host, NodeRole role) throws IOException;
    }

    private RayDiscovery() {
    }

    /**
     * The run's nodes: the head first, on the host discovery asked, then each worker at its address;
     * the head starts the server, the workers only sample (Ray starts vLLM's workers there).
     */
    public static List<Node> nodes(Cluster cluster, Host headHost, HostAt hostAt, NodeOf nodeOf) throws IOException {
        List<Node> all = new ArrayList<>();
        all.add(nodeOf.of(headHost, NodeRole.HEAD));
        for (RayNode w : cluster.workers()) {
            all.add(nodeOf.of(hostAt.at(w.ip()), NodeRole.WORKER));
        }
        return all;
    }

    /**
     * @throws CollectException when ray is not on the head's PATH, when neither command names the
     *     nodes by address, or when no alive node is (or can be told to be) the head
     */
    public static Cluster discover(Host head, Duration timeout) throws IOException {
        if (!head.hasCommand("ray")) {
            throw new CollectException("ray is not on PATH of " + head.name() + "; activate the environment Ray runs from"
                    + " (e.g. --remote-env PATH=/path/to/venv/bin:/usr/bin:/bin), or name the nodes with --host / --hostfile");
        }
        List<String> list = List.of("ray", "list", "nodes", "--format", "json", "--limit", LIMIT);
        CommandResult r = head.run(list, Map.of(), timeout);
        List<RayNode> nodes;
        String command;
        if (r.ok()) {
            command = String.join(" ", list);
            try {
                nodes = RayNodesParser.listNodesJson(r.stdoutText());
            } catch (IllegalArgumentException e) {
                throw new CollectException("on " + head.name() + ", " + command + ": " + e.getMessage());
            }
        } else {
            // a Ray without the state API (1.x, or without ray[default]): its autoscaler summary
            List<String> status = List.of("ray", "status", "-v");
            CommandResult s = head.run(status, Map.of(), timeout);
            command = String.join(" ", status);
            if (!s.ok()) {
                throw new CollectException("on " + head.name() + ", neither '" + String.join(" ", list) + "' ("
                        + lastLine(r) + ") nor '" + command + "' (" + lastLine(s) + ") answered; is the Ray cluster up"
                        + " (ray start --head) and is this its head?");
            }
            try {
                nodes = RayNodesParser.statusText(s.stdoutText());
            } catch (IllegalArgumentException e) {
                throw new CollectException("on " + head.name() + ", '" + String.join(" ", list) + "' failed (" + lastLine(r)
                        + ") and " + command + ": " + e.getMessage());
            }
        }
        List<RayNode> alive = nodes.stream().filter(RayNode::alive).toList();
        List<RayNode> dead = nodes.stream().filter(n -> !n.alive()).toList();
        if (alive.isEmpty()) {
            throw new CollectException("on " + head.name() + ", " + command + " lists no ALIVE node");
        }
        RayNode h = headOf(head, alive, command, timeout);
        List<RayNode> workers = new ArrayList<>();
        for (RayNode n : alive) {
            if (n != h) {
                workers.add(n.asHead(false));
            }
        }
        return new Cluster(h.asHead(true), workers, dead, command);
    }

    private static RayNode headOf(Host head, List<RayNode> alive, String command, Duration timeout) throws IOException {
        List<RayNode> marked = alive.stream().filter(n -> Boolean.TRUE.equals(n.head())).toList();
        if (marked.size() == 1) {
            return marked.get(0);
        }
        // Ray did not say: the head is the node at an address of the host we asked
        CommandResult r = head.run(List.of("hostname", "-I"), Map.of(), timeout);
        List<String> own = r.ok() ? Arrays.asList(r.stdoutText().strip().split("\\s+")) : List.of();
        List<RayNode> here = alive.stream().filter(n -> own.contains(n.ip())).toList();
        if (here.size() == 1) {
            return here.get(0);
        }
        throw new CollectException("on " + head.name() + ", " + command + " does not say which node is the head, and none of"
                + " its addresses " + alive.stream().map(RayNode::ip).toList() + " is one of the host's own (" + own
                + "); pass the head's own address to --ray-head, or name the nodes with --host / --hostfile");
    }

    private static String lastLine(CommandResult r) {
        String[] lines = (r.stderrText() + "\n" + r.stdoutText()).strip().split("\\R");
        String l = lines[lines.length - 1].strip();
        return r.timedOut() ? "timed out" : "exit " + r.exitCode() + (l.isEmpty() ? "" : ": " + l);
    }
}

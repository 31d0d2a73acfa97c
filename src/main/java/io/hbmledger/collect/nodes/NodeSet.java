package io.hbmledger.collect.nodes;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.CollectSettings;
import io.hbmledger.collect.Collector;
import io.hbmledger.collect.ExecutionSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * One collection across the nodes of a multi-node deployment: each node runs the single-node mode
 * ({@link Collector}) into its own sub-directory {@code nodes/NAME/} of one run directory, all
 * nodes in parallel, meeting at every phase and fixed sample ({@link NodeGate}) so that their
 * samples are taken at the same instant. The top run.json ({@link ClusterJournal}) records each
 * node's outcome and clock offset; a node that drops out leaves its peers' evidence whole and the
 * run {@code incomplete}, naming it. Each node has a role ({@link NodeRole}): heads run a server,
 * workers only sample.
 */
public final class NodeSet {

    /** How one node's collection ended: its outcome, or the error that ended it outside the collector. */
    record Result(Node node, Collector.Outcome outcome, String error) {
    }

    /** The single-node mode a node runs, given its collector, its sub-directory and its rank among the nodes. */
    interface NodeMode {
        Collector.Outcome run(Collector collector, Node node, Path nodeDir, int nodeRank) throws IOException;
    }

    private final List<Node> nodes;
    private final CollectSettings settings;
    private final PrintStream out;
    private final List<Collector> collectors = new ArrayList<>();
    private Map<String, Object> connection = Map.of();

    /** @throws IllegalArgumentException when no node is given or two share a name */
    public NodeSet(List<Node> nodes, CollectSettings settings, PrintStream out) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no node: a multi-node collection needs at least one host");
        }
        var names = new HashSet<String>();
        for (Node n : nodes) {
            if (!names.add(n.name())) {
                throw new IllegalArgumentException("two nodes are named " + n.name() + "; give each host once");
            }
        }
        this.nodes = List.copyOf(nodes);
        this.settings = settings;
        this.out = out;
    }

    /**
     * How the nodes were reached (key file, known_hosts, remote environment...), kept in the top
     * run.json as {@code connection} so that a resume needs only the run directory; no secret in it.
     */
    public NodeSet recording(Map<String, Object> connection) {
        this.connection = Map.copyOf(connection);
        return this;
    }

    /**
     * Standalone on every node: each head starts its own server from {@code specOfNode} (given the
     * node's rank, 0 for the first host), measures it and stops it; each worker only samples, at the
     * same instants, and starts nothing.
     */
    public Collector.Outcome standalone(Path runDir, IntFunction<ExecutionSpec> specOfNode) throws IOException {
        ClusterJournal top = ClusterJournal.create(runDir, "standalone", nodes, connection);
        return collect(top, (c, n, dir, rank) -> n.role() == NodeRole.WORKER ? c.worker(dir, "standalone")
                : c.standalone(dir, specOfNode.apply(rank)));
    }

    /**
     * Attach on every head to its running execution ({@code executionIds} in the order of the heads);
     * all are left running. Workers only sample.
     */
    public Collector.Outcome attach(Path runDir, List<String> executionIds) throws IOException {
        List<Node> heads = nodes.stream().filter(n -> n.role() == NodeRole.HEAD).toList();
        if (executionIds.size() != heads.size()) {
            throw new CollectException(executionIds.size() + " execution ids for " + heads.size() + " head nodes; give one"
                    + " --attach id per node that runs a server, in the order of the hosts");
        }
        ClusterJournal top = ClusterJournal.create(runDir, "attach", nodes, connection);
        return collect(top, (c, n, dir, rank) -> n.role() == NodeRole.WORKER ? c.worker(dir, "attach")
                : c.attach(dir, executionIds.get(heads.indexOf(n))));
    }

    /**
     * Resume on every head whose sub-directory holds a run, once its execution stopped; a worker
     * (role from the run's own run.json) has no execution to resume and keeps what it took.
     *
     * @param expectedIds the execution each node's run must belong to, in node order (a worker's
     *     entry is not used); null to take each node's run.json's
     */
    public Collector.Outcome resume(Path runDir, List<String> expectedIds) throws IOException {
        if (expectedIds != null && expectedIds.size() != nodes.size()) {
            throw new CollectException(expectedIds.size() + " execution ids for " + nodes.size() + " nodes; give one"
                    + " --execution id per node, comma-separated in the order of the nodes, or none");
        }
        ClusterJournal top = ClusterJournal.load(runDir, nodes);
        return collect(top, (c, n, dir, rank) -> top.role(n.name()) == NodeRole.WORKER ? kept(dir)
                : c.resume(dir, expectedIds == null ? null : expectedIds.get(rank)));
    }

    /** A worker's earlier run as it is: sample-only, it has nothing that resume could add. */
    private Collector.Outcome kept(Path dir) throws IOException {
        String status = io.hbmledger.collect.RunJournal.load(dir).manifest().status();
        return switch (status) {
            case "complete" -> Collector.Outcome.COMPLETE;
            case "incomplete" -> Collector.Outcome.INCOMPLETE;
            default -> Collector.Outcome.FAILED;
        };
    }

    private Collector.Outcome collect(ClusterJournal top, NodeMode mode) throws IOException {
        top.clock("start", offsets());
        List<Result> results = runAll(top, mode);
        top.clock("end", offsets());
        return top.finish(results, out);
    }

    private List<Result> runAll(ClusterJournal top, NodeMode mode) throws IOException {
        NodeGate gate = new NodeGate(nodes.stream().map(Node::name).toList(), patience());
        ExecutorService pool = Executors.newFixedThreadPool(nodes.size(), r -> new Thread(r, "hbm-ledger-node"));
        try {
            List<Future<Result>> running = new ArrayList<>();
            for (int i = 0; i < nodes.size(); i++) {
                Node n = nodes.get(i);
                String prefix = "[" + n.name() + (n.role() == NodeRole.WORKER ? " worker" : "") + "] ";
                Collector c = new Collector(n.host(), n.executions(), settings, new PrefixedLines(out, prefix))
                        .meetingAt(gate.forNode(n.name())).inRole(n.role().jsonName());
                synchronized (collectors) {
                    collectors.add(c);
                }
                int rank = i;
                running.add(pool.submit(() -> runOne(top, gate, n, c, mode, rank)));
            }
            List<Result> results = new ArrayList<>();
            for (Future<Result> f : running) {
                results.add(f.get());
            }
            top.late(gate.late());
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectException("interrupted while the nodes collected", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new CollectException("a node's collection broke: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private Result runOne(ClusterJournal top, NodeGate gate, Node n, Collector c, NodeMode mode, int rank) {
        try {
            Collector.Outcome o = mode.run(c, n, top.nodeDir(n.name()), rank);
            if (o == Collector.Outcome.REFUSED) {
                gate.refuse("node " + n.name() + " was refused (see its lines above); nothing is started on any node");
            }
            return new Result(n, o, null);
        } catch (IOException | RuntimeException e) {
            // this node dropped out: its peers go on and keep their evidence
            return new Result(n, Collector.Outcome.FAILED, e.getMessage() == null ? e.toString() : e.getMessage());
        } finally {
            gate.leave(n.name());
        }
    }

    /** Each node's clock offset, measured in parallel; a node that cannot say has none. */
    private Map<String, ClockOffset> offsets() {
        Map<String, ClockOffset> m = new java.util.concurrent.ConcurrentHashMap<>();
        nodes.parallelStream().forEach(n -> {
            try {
                ClockOffset o = ClockOffset.measure(n.host());
                if (o != null) {
                    m.put(n.name(), o);
                }
            } catch (IOException | RuntimeException unreachable) {
                // recorded as no offset: the node may be the one that dropped out
            }
        });
        return m;
    }

    /** How long a node waits for a late peer at one point: the longest any single phase may take. */
    private Duration patience() {
        Duration d = settings.readyTimeout();
        for (Duration x : List.of(settings.exportTimeout(), settings.copyTimeout(), settings.workload().deadline())) {
            if (x.compareTo(d) > 0) {
                d = x;
            }
        }
        return d.plus(settings.npuSmiTimeout().multipliedBy(2)).plus(settings.stop().afterInt())
                .plus(settings.stop().afterTerm()).plus(settings.stop().release());
    }

    /** Called from the Ctrl-C hook: every node's collection stops what it started; attached executions stay. */
    public List<Collector.Interrupted> interrupt(String why) {
        List<Collector> all;
        synchronized (collectors) {
            all = List.copyOf(collectors);
        }
        return all.parallelStream().map(c -> c.interrupt(why)).toList();
    }
}

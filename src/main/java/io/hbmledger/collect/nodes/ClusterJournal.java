package io.hbmledger.collect.nodes;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.Collector;
import io.hbmledger.collect.RunJournal;
import io.hbmledger.run.RunManifest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The top run.json of a multi-node run: mode {@code multinode} ({@code node_mode}: the mode each node ran), no evidence of its own
 * (each node's sub-directory {@code nodes/NAME/} is a whole single-node run), and {@code nodes}:
 * per node its host, role (head or worker, see {@link NodeRole}), directory, status, phase reached, execution and clock offsets at start and
 * end; {@code connection}: how the hosts were reached, for resume. {@code clock} holds the spread of the offsets across nodes and their skew (the largest
 * change of one node's offset from start to end). Complete only when every node is.
 */
final class ClusterJournal {

    static final String NODES_DIR = "nodes";

    private final RunJournal journal;
    private final Map<String, Map<String, Object>> nodes = new LinkedHashMap<>();
    private final Map<String, Map<String, ClockOffset>> clocks = new LinkedHashMap<>();

    private ClusterJournal(RunJournal journal) {
        this.journal = journal;
    }

    static ClusterJournal create(Path runDir, String mode, List<Node> nodes, Map<String, Object> connection) throws IOException {
        ClusterJournal j = new ClusterJournal(RunJournal.create(runDir, RunJournal.newRunId(runDir), "multinode"));
        j.journal.extra("node_mode", mode);
        if (!connection.isEmpty()) {
            j.journal.extra("connection", connection);
        }
        for (Node n : nodes) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", n.name());
            entry.put("host", n.host().name());
            entry.put("role", n.role().jsonName());
            entry.put("dir", NODES_DIR + "/" + n.name());
            entry.put("status", "running");
            j.nodes.put(n.name(), entry);
        }
        j.save();
        // made once here: the nodes' collections start in parallel, and each would otherwise race
        // to create this shared parent of its own run directory
        Files.createDirectories(runDir.resolve(NODES_DIR));
        return j;
    }

    /** An earlier multi-node run, for resume; the hosts given must be its nodes. */
    @SuppressWarnings("unchecked")
    static ClusterJournal load(Path runDir, List<Node> given) throws IOException {
        ClusterJournal j = new ClusterJournal(RunJournal.load(runDir));
        if (!(j.journal.manifest().extra().get("nodes") instanceof List<?> recorded)) {
            throw new CollectException(runDir + "/run.json is not a multi-node run (no nodes); resume it without --host lists");
        }
        for (Object o : recorded) {
            Map<String, Object> entry = new LinkedHashMap<>((Map<String, Object>) o);
            j.nodes.put(String.valueOf(entry.get("name")), entry);
        }
        // each node's state is read again from its own run.json at the end: what the first collection said of it is stale
        j.journal.replaceReasons(j.journal.manifest().incompleteReasons().stream().filter(r -> !r.startsWith("node ")).toList());
        List<String> names = given.stream().map(Node::name).toList();
        if (!names.containsAll(j.nodes.keySet()) || !j.nodes.keySet().containsAll(names)) {
            throw new CollectException("run " + runDir + " was collected on nodes " + j.nodes.keySet() + ", not " + names
                    + "; pass the same hosts as the first collection, or none (resume reads them from run.json)");
        }
        return j;
    }

    /** The node's role as this run recorded it. */
    NodeRole role(String node) {
        return NodeRole.of(nodes.get(node).get("role"));
    }

    Path nodeDir(String node) {
        return journal.runDir().resolve(NODES_DIR).resolve(node);
    }

    /** Records each node's clock offset at {@code when} (start or end) and the spread and skew so far. */
    void clock(String when, Map<String, ClockOffset> offsets) throws IOException {
        for (var e : nodes.entrySet()) {
            ClockOffset o = offsets.get(e.getKey());
            clocks.computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>()).put(when, o);
            @SuppressWarnings("unchecked")
            Map<String, Object> clock = (Map<String, Object>) e.getValue().computeIfAbsent("clock", k -> new LinkedHashMap<>());
            clock.put(when, o == null ? "not measured: the node did not answer date +%s%3N" : o.json());
        }
        journal.extra("clock", ClockSpread.of(clocks));
        save();
    }

    void late(List<String> lines) {
        lines.forEach(l -> journal.reason("a node was late at " + l));
    }

    /** Reads every node's own run.json, sums them up in the top run.json, prints the outcome. */
    Collector.Outcome finish(List<NodeSet.Result> results, PrintStream out) throws IOException {
        List<String> statuses = new ArrayList<>();
        List<List<String>> done = new ArrayList<>();
        List<List<String>> plans = new ArrayList<>();
        java.util.LinkedHashSet<String> planned = new java.util.LinkedHashSet<>();
        for (NodeSet.Result r : results) {
            Map<String, Object> entry = nodes.get(r.node().name());
            Path dir = nodeDir(r.node().name());
            if (!Files.isRegularFile(dir.resolve(RunJournal.FILE))) {
                entry.put("status", r.outcome() == Collector.Outcome.REFUSED ? "refused" : "failed");
                statuses.add((String) entry.get("status"));
                journal.reason("node " + r.node().name() + " holds no run: " + (r.error() != null ? r.error() : "refused before it took anything"));
                continue;
            }
            RunManifest m = RunJournal.load(dir).manifest();
            entry.put("status", m.status());
            entry.put("phase", m.phase());
            entry.put("execution_id", m.executionId());
            statuses.add(m.status());
            RunJournal node = RunJournal.load(dir);
            done.add(node.phasesDone());
            plans.add(node.phasesPlanned());
            planned.addAll(node.phasesPlanned());
            if (!"complete".equals(m.status())) {
                journal.reason("node " + r.node().name() + " is " + m.status() + " (phase " + m.phase() + ")"
                        + (m.incompleteReasons().isEmpty() ? "" : ": " + m.incompleteReasons().get(0))
                        + (r.error() != null ? "; " + r.error() : ""));
            }
        }
        if (statuses.stream().allMatch("refused"::equals)) {
            journal.discard();
            Files.deleteIfExists(journal.runDir().resolve(NODES_DIR));
            Files.deleteIfExists(journal.runDir());
            out.println("hbm-ledger collect: refused on every node; nothing was started and no run was kept");
            return Collector.Outcome.REFUSED;
        }
        // the run has done a phase when every node that plans it has (a worker plans no server phase)
        journal.plan(List.copyOf(planned));
        for (String p : planned) {
            boolean all = done.size() == results.size();
            for (int i = 0; i < done.size() && all; i++) {
                all = !plans.get(i).contains(p) || done.get(i).contains(p);
            }
            if (all) {
                journal.done(p);
            }
        }
        String status = statuses.stream().allMatch("complete"::equals) ? "complete"
                : statuses.stream().noneMatch(s -> "complete".equals(s) || "incomplete".equals(s)) ? "failed" : "incomplete";
        journal.phase("done");
        journal.status(status);
        save();
        out.println("run " + journal.runDir() + ": " + status + " (" + results.size() + " nodes)");
        journal.manifest().incompleteReasons().forEach(r -> out.println("  - " + r));
        return switch (status) {
            case "complete" -> Collector.Outcome.COMPLETE;
            case "incomplete" -> Collector.Outcome.INCOMPLETE;
            default -> Collector.Outcome.FAILED;
        };
    }

    private void save() throws IOException {
        journal.extra("nodes", new ArrayList<>(nodes.values()));
        journal.save();
    }
}

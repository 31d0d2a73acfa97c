package io.hbmledger.collect.nodes;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.DeviceSmi;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.Executions;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code exec list|status|stop} over the nodes of a deployment: the records are this machine's (the
 * state directory), each naming the host its execution runs on; every node is asked about its own
 * executions in parallel, and each line is prefixed with the node's name ({@code [NAME] ...}), in
 * node order. A node that does not answer is said on its own line; the others are not held up.
 */
public final class NodeExecutions {

    private final List<Node> nodes;
    private final PrintStream out;

    public NodeExecutions(List<Node> nodes, PrintStream out) {
        this.nodes = List.copyOf(nodes);
        this.out = out;
    }

    /** What one node has to say, its lines, and whether it all went well. */
    private record Answer(List<String> lines, boolean ok) {
    }

    private interface PerNode {
        Answer ask(Node n, List<ExecutionRecord> own) throws IOException;
    }

    /** Every node's executions: id, state, alive, port, started, model. Exit 0, or 1 when a node did not answer. */
    public int list() throws IOException {
        out.printf("%-16s %-28s %-10s %-6s %-8s %-30s %s%n", "NODE", "ID", "STATE", "ALIVE", "PORT", "STARTED", "MODEL");
        return each(List.of(), (n, own) -> {
            List<String> lines = new ArrayList<>();
            for (ExecutionRecord r : own) {
                lines.add(String.format("%-28s %-10s %-6s %-8d %-30s %s", r.id(), r.state(), n.executions().alive(r) ? "yes" : "no",
                        r.port(), r.started(), r.model()));
            }
            return new Answer(lines, true);
        });
    }

    /** Each execution's state on its node: alive (process group) or not, port, model. */
    public int status(List<String> ids) throws IOException {
        return each(ids, (n, own) -> {
            List<String> lines = new ArrayList<>();
            for (ExecutionRecord r : own) {
                boolean alive = n.executions().alive(r);
                lines.add(r.id() + ": " + r.state() + (alive ? " (process group " + r.pgid() + " alive)" : " (no process left)")
                        + ", port " + r.port() + ", model " + r.model() + ", devices " + r.devices());
            }
            return new Answer(lines, true);
        });
    }

    /** Stops each execution on its node (SIGINT, SIGTERM, SIGKILL to its group), all nodes at once. Exit 0 when all stopped. */
    public int stop(List<String> ids, Executions.StopTimeouts timeouts) throws IOException {
        return each(ids, (n, own) -> {
            List<String> lines = new ArrayList<>();
            boolean ok = true;
            Executions ex = n.executions();
            String tool = ex.accelerator().tool();
            DeviceSmi smi = ex.host().hasCommand(tool) ? ex.accelerator().smi(ex.host(), Duration.ofSeconds(30)) : null;
            for (ExecutionRecord r : own) {
                Executions.StopReport s = ex.stop(r, timeouts, smi);
                lines.add(r.id() + ": " + s.detail());
                ok &= s.stopped() && !Boolean.FALSE.equals(s.devicesReleased());
            }
            return new Answer(lines, ok);
        });
    }

    /**
     * Asks every node about its own records (those of {@code ids}, or all when empty) in parallel and
     * prints the answers in node order.
     *
     * @throws CollectException for an id no record has, or whose host is none of the nodes
     */
    private int each(List<String> ids, PerNode ask) throws IOException {
        List<ExecutionRecord> all = nodes.get(0).executions().store().list();
        List<ExecutionRecord> chosen = new ArrayList<>();
        for (String id : ids) {
            ExecutionRecord r = all.stream().filter(x -> x.id().equals(id)).findFirst()
                    .orElseThrow(() -> new CollectException("no execution '" + id + "' in " + nodes.get(0).executions().store().root()
                            + "; 'hbm-ledger exec list' with the same hosts shows the known ones"));
            if (nodes.stream().noneMatch(n -> n.host().name().equals(r.host()))) {
                throw new CollectException("execution " + id + " runs on " + r.host() + ", which is none of the nodes given ("
                        + nodes.stream().map(n -> n.host().name()).toList() + "); name that host too");
            }
            chosen.add(r);
        }
        List<ExecutionRecord> wanted = ids.isEmpty() ? all : chosen;
        Map<String, Answer> answers = new ConcurrentHashMap<>();
        nodes.parallelStream().forEach(n -> {
            List<ExecutionRecord> own = wanted.stream().filter(r -> r.host().equals(n.host().name())).toList();
            if (own.isEmpty() && !ids.isEmpty()) {
                return;
            }
            try {
                answers.put(n.name(), ask.ask(n, own));
            } catch (IOException | RuntimeException e) {
                answers.put(n.name(), new Answer(List.of("does not answer: " + (e.getMessage() == null ? e.toString() : e.getMessage())),
                        false));
            }
        });
        boolean ok = true;
        for (Node n : nodes) {
            Answer a = answers.get(n.name());
            if (a == null) {
                continue;
            }
            String prefix = String.format("%-16s ", "[" + n.name() + "]");
            a.lines().forEach(l -> out.println(prefix + l));
            ok &= a.ok();
        }
        return ok ? 0 : 1;
    }
}

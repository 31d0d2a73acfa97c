package io.hbmledger.cli;

import io.hbmledger.collect.ArgumentException;
import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.Collector;
import io.hbmledger.collect.ExecutionSpec;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.Host;
import io.hbmledger.collect.kube.KubeHost;
import io.hbmledger.collect.kube.KubeTarget;
import io.hbmledger.collect.kube.Kubectl;
import io.hbmledger.collect.nodes.Node;
import io.hbmledger.collect.nodes.NodeRole;
import io.hbmledger.collect.nodes.NodeSet;
import io.hbmledger.collect.nodes.ray.RayDiscovery;
import io.hbmledger.collect.nodes.ray.RayNode;
import io.hbmledger.collect.ssh.SshHost;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code collect} over several hosts or pods: one run directory with {@code nodes/NAME/} per node
 * (see {@link NodeSet}). The command may hold {@code {node_rank}} (0 for the first host), replaced
 * per node, e.g. {@code --data-parallel-rank {node_rank}} for vLLM's multi-node data parallel.
 */
final class MultiNodeCollect {

    static final String NODE_RANK = "{node_rank}";

    private final CollectCommand o;
    private final List<String> sshTargets;

    MultiNodeCollect(CollectCommand options, List<String> sshTargets) {
        this.o = options;
        this.sshTargets = sshTargets;
    }

    int call() throws IOException {
        PrintStream log = System.err;
        List<Host> hosts = new ArrayList<>();
        try {
            ExecutionStore store = ExecutionStore.resolve(o.stateDir, System.getenv());
            store.prepare();
            o.checkNumbers();
            List<Node> nodes = new ArrayList<>();
            if (o.rayHead != null) {
                nodes.addAll(rayNodes(store, hosts, log));
            } else {
                for (String t : sshTargets) {
                    hosts.add(ssh(t));
                }
                Kubectl kubectl = Kubectl.of(o.kubeconfig, o.kubeContext);
                for (KubeTarget t : NodeTargets.pods(o.kube, o.kubeSelector, kubectl)) {
                    hosts.add(new KubeHost(kubectl, t, o.remoteEnv));
                }
                if (hosts.isEmpty()) {
                    throw new ArgumentException("no node: --host, --hostfile, --kube, --kube-selector or --ray-head named none");
                }
                io.hbmledger.collect.Accelerator kind = kind(hosts.get(0));
                boolean headOnly = headOnly();
                for (Host h : hosts) {
                    nodes.add(node(h, store, kind, nodes.isEmpty() || !headOnly ? NodeRole.HEAD : NodeRole.WORKER));
                }
            }
            io.hbmledger.collect.Accelerator kind = nodes.get(0).executions().accelerator();
            NodeSet set = new NodeSet(nodes, o.settings(kind), log).recording(RecordedNodes.connection(o));
            Path runDir = o.mode.resume != null ? o.mode.resume : o.runDir();
            Thread hook = new Thread(() -> {
                List<Collector.Interrupted> left = set.interrupt("SIGINT or SIGTERM");
                log.println(interrupted(left, runDir));
                log.flush();
            }, "hbm-ledger-collect-interrupt");
            Runtime.getRuntime().addShutdownHook(hook);
            Collector.Outcome outcome;
            try {
                if (o.mode.resume != null) {
                    outcome = set.resume(runDir, o.expectedExecution == null ? null : List.of(o.expectedExecution.split(",")));
                } else if (o.mode.attach != null) {
                    outcome = set.attach(runDir, List.of(o.mode.attach.split(",")));
                } else {
                    if (o.command.isEmpty()) {
                        throw new ArgumentException("no serving command; expected e.g. 'hbm-ledger collect --host a --host b --out runs/x"
                                + " -- vllm serve /models/NAME --data-parallel-rank {node_rank}'");
                    }
                    outcome = set.standalone(runDir, rank -> spec(rank));
                }
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook ran: it had the last word
                }
            }
            if (outcome != Collector.Outcome.REFUSED) {
                o.spec.commandLine().getOut().println(runDir.resolve("run.json"));
            }
            return outcome.exitCode;
        } catch (CollectException | IllegalArgumentException e) {
            log.println("hbm-ledger collect: " + e.getMessage());
            return Main.EXIT_BAD_INPUT;
        } finally {
            for (Host h : hosts) {
                h.close();
            }
        }
    }

    /** After Ctrl-C: what each node kept, and the one command that goes on (hosts come from run.json). */
    private String interrupted(List<Collector.Interrupted> left, Path runDir) {
        StringBuilder b = new StringBuilder("hbm-ledger collect: interrupted on " + left.size() + " nodes.");
        boolean started = false;
        for (Collector.Interrupted r : left) {
            if (r.runDir() != null) {
                b.append(System.lineSeparator()).append("  ").append(r.runDir().getFileName()).append(": phase ").append(r.phase())
                        .append(r.executionId() == null ? ", no server started" : ", execution " + r.executionId()
                                + ("attach".equals(r.mode()) ? " left running (attach never stops it)" : r.stoppedHere() ? " stopped" : ""));
                started |= r.executionId() != null;
            }
        }
        String state = o.stateDir != null ? " --state-dir " + CollectCommand.shellWord(o.stateDir.toString()) : "";
        return b.append(System.lineSeparator()).append(started
                ? "  to continue (once every execution stopped): hbm-ledger collect --resume " + CollectCommand.shellWord(runDir.toString()) + state
                : "  no server was started: collect again with a new --out").toString();
    }

    private ExecutionSpec spec(int rank) {
        List<String> command = o.command.stream().map(a -> a.replace(NODE_RANK, Integer.toString(rank))).toList();
        return ExecutionSpec.fromCommand(command, o.port, ExecCommand.parseDevices(o.devices), o.env,
                o.noMsprof ? null : o.msprofHz, null);
    }

    /**
     * Only the first node starts the server when told (--head-only), and when the command is one
     * server for the whole deployment: Ray's executor, or vLLM's data parallel with its head's
     * address and no per-node rank (its --headless workers are the user's).
     */
    private boolean headOnly() {
        return headOnly(o.headOnly, o.command);
    }

    static boolean headOnly(boolean told, List<String> command) {
        if (told) {
            return true;
        }
        String cmd = String.join(" ", command);
        boolean perNode = cmd.contains(NODE_RANK);
        return !perNode && (cmd.contains("--data-parallel-address") || cmd.matches(".*--distributed-executor-backend[ =]ray\\b.*"));
    }

    /** The alive nodes of the Ray cluster whose head is --ray-head: the head serves, the others sample. */
    private List<Node> rayNodes(ExecutionStore store, List<Host> opened, PrintStream log) throws IOException {
        if (!sshTargets.isEmpty() || !o.kube.isEmpty() || o.kubeSelector != null) {
            throw new ArgumentException("--ray-head finds the nodes itself; give it without --host, --hostfile or --kube");
        }
        Host head = ssh(o.rayHead);
        opened.add(head);
        RayDiscovery.Cluster found = RayDiscovery.discover(head, Duration.ofSeconds(60));
        log.println("hbm-ledger collect: Ray head " + head.name() + " (" + found.head().ip() + ") lists " + found.workers().size()
                + " alive worker node(s) " + found.workers().stream().map(RayNode::ip).toList()
                + (found.dead().isEmpty() ? "" : "; left out, DEAD: " + found.dead().stream().map(RayNode::ip).toList())
                + " (from '" + found.command() + "')");
        String user = o.rayHead.contains("@") ? o.rayHead.substring(0, o.rayHead.lastIndexOf('@') + 1) : "";
        io.hbmledger.collect.Accelerator kind = kind(head);
        return RayDiscovery.nodes(found, head, ip -> {
            Host h = ssh(user + ip);
            opened.add(h);
            return h;
        }, (h, role) -> node(h, store, kind, role));
    }

    private io.hbmledger.collect.Accelerator kind(Host first) throws IOException {
        return o.accelerator != null ? io.hbmledger.collect.Accelerator.parse(o.accelerator)
                : io.hbmledger.collect.Accelerator.detect(first);
    }

    private Host ssh(String target) {
        Path home = Path.of(System.getProperty("user.home"));
        return SshHost.connect(target, o.identity != null ? o.identity : home.resolve(".ssh/id_ed25519"),
                o.knownHosts != null ? o.knownHosts : home.resolve(".ssh/known_hosts"), o.remoteEnv, Duration.ofSeconds(30),
                o.keepRemote);
    }

    private Node node(Host h, ExecutionStore store, io.hbmledger.collect.Accelerator kind, NodeRole role) throws IOException {
        String root = o.remoteStateDir;
        if (root == null) {
            var r = h.run(List.of("printenv", "HOME"), Map.of(), Duration.ofSeconds(20));
            if (!r.ok() || r.stdoutText().isBlank()) {
                throw new CollectException("cannot find the home directory on " + h.name() + "; pass --remote-state-dir");
            }
            root = r.stdoutText().strip() + "/.hbm-ledger/executions";
        }
        return new Node(Node.nameOf(h.name()), h, new Executions(h, store, root, kind), role);
    }
}

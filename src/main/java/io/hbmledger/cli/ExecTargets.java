package io.hbmledger.cli;

import io.hbmledger.collect.Accelerator;
import io.hbmledger.collect.ArgumentException;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.Host;
import io.hbmledger.collect.nodes.Node;
import io.hbmledger.collect.nodes.NodeRole;
import io.hbmledger.collect.nodes.ray.RayDiscovery;
import io.hbmledger.collect.ssh.SshHost;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The hosts an {@code exec} verb asks, as {@code collect} names them: {@code --host} repeated,
 * {@code --hostfile}, or {@code --ray-head} (its alive nodes); none: this host. The execution records
 * stay this machine's; each names the host its execution runs on.
 */
final class ExecTargets {

    @Option(names = "--host", paramLabel = "USER@HOST[:PORT]", description = "ask this host over SSH; repeatable (the nodes of a deployment)")
    List<String> hosts = new ArrayList<>();
    @Option(names = "--hostfile", paramLabel = "FILE", description = "the nodes, one USER@HOST[:PORT] a line")
    Path hostfile;
    @Option(names = "--ray-head", paramLabel = "USER@HOST[:PORT]", description = "the nodes of the Ray cluster whose head this is")
    String rayHead;
    @Option(names = "--identity", paramLabel = "FILE", description = "SSH private key (default ~/.ssh/id_ed25519)")
    Path identity;
    @Option(names = "--known-hosts", paramLabel = "FILE", description = "known_hosts to check host keys against (default ~/.ssh/known_hosts)")
    Path knownHosts;
    @Option(names = "--remote-env", paramLabel = "NAME=VALUE", description = "environment for every remote command")
    Map<String, String> remoteEnv = new LinkedHashMap<>();

    boolean any() {
        return !hosts.isEmpty() || hostfile != null || rayHead != null;
    }

    /** The nodes, each host connected; the caller closes them. */
    List<Node> open(ExecutionStore store, List<Host> opened) throws IOException {
        List<Host> hs = new ArrayList<>();
        if (rayHead != null) {
            if (!hosts.isEmpty() || hostfile != null) {
                throw new ArgumentException("--ray-head finds the nodes itself; give it without --host or --hostfile");
            }
            Host head = ssh(rayHead);
            opened.add(head);
            String user = rayHead.contains("@") ? rayHead.substring(0, rayHead.lastIndexOf('@') + 1) : "";
            return RayDiscovery.nodes(RayDiscovery.discover(head, Duration.ofSeconds(60)), head, ip -> {
                Host h = ssh(user + ip);
                opened.add(h);
                return h;
            }, (h, role) -> node(h, store, role));
        }
        for (String t : NodeTargets.sshTargets(hosts, hostfile)) {
            Host h = ssh(t);
            opened.add(h);
            hs.add(h);
        }
        List<Node> nodes = new ArrayList<>();
        for (Host h : hs) {
            nodes.add(node(h, store, NodeRole.HEAD));
        }
        return nodes;
    }

    private Node node(Host h, ExecutionStore store, NodeRole role) throws IOException {
        // list, status and stop read each record's own runtime directory: no root of new ones is needed
        return new Node(Node.nameOf(h.name()), h, new Executions(h, store, "", Accelerator.detect(h)), role);
    }

    private Host ssh(String target) {
        Path home = Path.of(System.getProperty("user.home"));
        return SshHost.connect(target, identity != null ? identity : home.resolve(".ssh/id_ed25519"),
                knownHosts != null ? knownHosts : home.resolve(".ssh/known_hosts"), remoteEnv, Duration.ofSeconds(30));
    }
}

package io.hbmledger.collect.nodes;

import io.hbmledger.collect.Executions;
import io.hbmledger.collect.Host;

/**
 * One node of a multi-node deployment: its name in the run (the sub-directory {@code nodes/NAME}
 * and the first part of its devices' names, {@code NAME/npu:0/chip:0}), the host its phases run on,
 * its executions there and its role (head: runs a server; worker: only samples).
 */
public record Node(String name, Host host, Executions executions, NodeRole role) {

    public Node {
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new IllegalArgumentException("node name '" + name + "': expected letters, digits, '.', '_' or '-'");
        }
        java.util.Objects.requireNonNull(role, "role");
    }

    /** A node that runs its own server (every node of a {@code {node_rank}} data-parallel run). */
    public Node(String name, Host host, Executions executions) {
        this(name, host, executions, NodeRole.HEAD);
    }

    /** The same node in another role. */
    public Node as(NodeRole r) {
        return new Node(name, host, executions, r);
    }

    /**
     * A node name from a host's name: {@code root@npu-node-2:22} gives {@code npu-node-2-22},
     * {@code kube:serving/vllm-0:main} gives {@code vllm-0-main}.
     */
    public static String nameOf(String hostName) {
        String n = hostName;
        n = n.substring(n.lastIndexOf('@') + 1);
        if (n.startsWith("kube:")) {
            n = n.substring(n.indexOf('/') + 1);
        }
        n = n.replaceAll("[^A-Za-z0-9._-]", "-").replaceAll("^[^A-Za-z0-9]+", "");
        return n.isEmpty() ? "node" : n;
    }
}

package io.hbmledger.collect.nodes;

import io.hbmledger.collect.Executions;
import io.hbmledger.collect.Host;

/**
 * One node of a multi-node deployment: its name in the run (the sub-directory {@code nodes/NAME}
 * and the first part of its devices' names, {@code NAME/npu:0/chip:0}), the host its phases run on
 * and its executions there.
 */
public record Node(String name, Host host, Executions executions) {

    public Node {
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new IllegalArgumentException("node name '" + name + "': expected letters, digits, '.', '_' or '-'");
        }
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

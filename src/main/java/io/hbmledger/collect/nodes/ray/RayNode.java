package io.hbmledger.collect.nodes.ray;

import java.util.Map;

/**
 * One node of a Ray cluster as Ray reports it.
 *
 * @param nodeId Ray's node id (56 hex digits), null when the output named the node by address only
 * @param ip the node's address as Ray knows it ({@code node_ip}); the collector reaches the node there over SSH
 * @param head true for the head node, false for a worker, null when the output does not say
 * @param alive Ray's state ALIVE (false for DEAD)
 * @param accelerators the node's total accelerator resources as Ray counts them ({@code NPU}, {@code GPU}),
 *     whole devices; empty when it lists none
 */
public record RayNode(String nodeId, String ip, Boolean head, boolean alive, Map<String, Double> accelerators) {

    public RayNode {
        accelerators = Map.copyOf(accelerators);
    }

    RayNode asHead(boolean isHead) {
        return new RayNode(nodeId, ip, isHead, alive, accelerators);
    }
}

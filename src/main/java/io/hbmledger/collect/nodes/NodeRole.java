package io.hbmledger.collect.nodes;

/**
 * What a node does in a multi-node collection. {@code head}: starts (or attaches to), measures and
 * stops the server on this node; in a run where every node runs its own server ({@code {node_rank}})
 * every node is a head. {@code worker}: the node of a deployment whose one server the head starts
 * (vLLM on Ray, or vLLM data parallel with {@code --headless} workers the user started): it only
 * samples, at the head's meeting points, and never starts or stops a server.
 */
public enum NodeRole {
    HEAD, WORKER;

    /** As written to run.json ({@code role}) and on the terminal. */
    public String jsonName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The role run.json names; HEAD for a run written before roles were recorded. */
    static NodeRole of(Object json) {
        return "worker".equals(json) ? WORKER : HEAD;
    }
}

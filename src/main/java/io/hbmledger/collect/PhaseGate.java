package io.hbmledger.collect;

/**
 * Where the collections of the nodes of one deployment meet: each node's collection arrives at the
 * same named points (the start of a phase, each fixed sample) and waits there for its peers, so that
 * the nodes' samples are taken at the same instant. A single-node collection meets nobody.
 */
public interface PhaseGate {

    /** The gate of a collection on its own: never waits. */
    PhaseGate NONE = point -> { };

    /**
     * Arrives at {@code point} (e.g. {@code phase:load}, {@code sample:baseline:2}) and returns once
     * every peer still running arrived there too, or the gate gave up waiting for a late one.
     */
    void arrive(String point);

    /** A peer node was refused in preflight: this node stops too, a refusal where it started nothing yet. */
    class PeerRefused extends CollectException {
        private static final long serialVersionUID = 1L;

        public PeerRefused(String message) {
            super(message);
        }
    }
}

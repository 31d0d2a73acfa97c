package io.hbmledger.verdict;

/**
 * The facts of one node of a multi-node run, its devices named across the cluster
 * ({@code NODE/npu:N/chip:M}).
 *
 * @param node the node's name in the run
 * @param facts what that node's own evidence and ledger say
 */
public record NodeFacts(String node, RunFacts facts) {
}

/**
 * Owners of device fields and ledger lines whose candidates come from several sources (used, weights, KV cache, allocator cache, residual); each weighs them in the order its Javadoc states, so rule order never picks a winner.
 */
package io.hbmledger.ledger.owner;

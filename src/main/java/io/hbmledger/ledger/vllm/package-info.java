/**
 * Rules over the vLLM log: the ledger moment, vLLM's own figures (and the candidates for weights and KV cache), the profile peak, out-of-memory figures, worker ranks and server starts.
 */
package io.hbmledger.ledger.vllm;

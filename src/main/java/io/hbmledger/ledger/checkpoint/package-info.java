/**
 * Rules over the model checkpoint (safetensors headers, config.json): the weights share and its check, the checkpoint total, KV bytes per token.
 */
package io.hbmledger.ledger.checkpoint;

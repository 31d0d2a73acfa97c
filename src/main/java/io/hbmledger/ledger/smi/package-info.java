/**
 * Rules over npu-smi / nvidia-smi samples: the sample and capacity, the driver baseline, the process table.
 */
package io.hbmledger.ledger.smi;

/**
 * Rules over msprof summaries: HCCL, CANN runtime and other modules, the allocator cache candidate, the peak under load; the device map and readings at an instant.
 */
package io.hbmledger.ledger.msprof;

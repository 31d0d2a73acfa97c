package io.hbmledger.ledger.owner;

import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.msprof.MsprofAllocatorCache;
import io.hbmledger.ledger.vllm.OomRule;





/**
 * Owner of the allocator cache line (PyTorch's caching allocator: reserved but not allocated).
 * Precedence, by design and not by rule order:
 * <ol>
 *   <li>the out-of-memory message's reserved minus allocated ({@link OomRule#allocatorCache}),
 *       in an out-of-memory ledger: the figures of the failing moment itself;</li>
 *   <li>msprof memory_record's {@code PTA} reserved minus allocated at ready
 *       ({@link MsprofAllocatorCache}), or the reason it gives none;</li>
 *   <li>otherwise no line: nothing in the run speaks of the allocator's cache.</li>
 * </ol>
 */
public final class AllocatorCacheRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        OomRule.allocatorCache(ev, d)
                .or(() -> MsprofAllocatorCache.atReady(ev, d))
                .ifPresent(d::decide);
    }
}

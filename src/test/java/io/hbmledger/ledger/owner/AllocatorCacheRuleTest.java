package io.hbmledger.ledger.owner;

import static io.hbmledger.ledger.owner.HandMadeRun.GIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link AllocatorCacheRule}: the OOM message's reserved - allocated first, msprof's PTA second. */
class AllocatorCacheRuleTest {

    private final EvidenceSet oomLog = new HandMadeRun().withLog()
            .logBytes(Quantity.OOM_ALLOCATED, 28 * GIB, 40, "28.00 GiB")
            .logBytes(Quantity.OOM_RESERVED, 30 * GIB, 40, "30.00 GiB").evidence();

    @Test
    void anOutOfMemoryLedgerTakesReservedMinusAllocatedFromTheMessage() {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        d.decideMoment("oom");
        new AllocatorCacheRule().apply(oomLog, d);
        Entry e = d.get(Component.ALLOCATOR_CACHE).orElseThrow();

        // 30 GiB - 28 GiB = 2 x 2^30 = 2147483648 B
        assertThat(e.bytes()).isEqualTo(2_147_483_648L);
        assertThat(e.confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(e.arithmetic()).isEqualTo("reserved 30.00 GiB - allocated 28.00 GiB = 2147483648 B (2.00 GiB)");
    }

    @Test
    void atReadyWithoutMsprofThereIsNoLine() {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        new AllocatorCacheRule().apply(oomLog, d);

        assertThat(d.get(Component.ALLOCATOR_CACHE)).isEmpty();
    }
}

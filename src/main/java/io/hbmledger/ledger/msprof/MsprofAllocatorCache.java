package io.hbmledger.ledger.msprof;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.owner.AllocatorCacheRule;
import java.util.List;
import java.util.Optional;

/**
 * torch_npu's caching allocator at ready: Total Reserved minus Total Allocated of memory_record's
 * {@code PTA} component (measured: two readings of the same memory_record row, the subtraction shown). PTA is PyTorch's own
 * allocator; {@code PTA+GE} would add the graph engine, which is in cann_runtime, so GE is not
 * counted twice. memory_record is written at each allocation and free, so its last row before
 * the instant holds however old it is. A candidate that {@link AllocatorCacheRule} weighs: a known
 * amount, or an unknown line that says why memory_record gave none.
 */
public final class MsprofAllocatorCache {

    private MsprofAllocatorCache() {
    }

    public static Optional<Entry> atReady(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        Optional<MsprofDeviceMap.Match> match = MsprofDeviceMap.atReady(ev, d);
        if (match.isEmpty()) {
            return Optional.empty();
        }
        MsprofSummary.DeviceMemory dm = match.get().memory();
        Optional<MsprofSummary.MemoryRecordComponent> pta = dm.record("PTA");
        if (pta.isEmpty() || pta.get().allocated() == null || pta.get().reserved() == null) {
            return Optional.empty();
        }
        // memory_record was read, so a missing line would read as "no cache": say why it is unknown.
        // No fallback to the maxima: the largest reserved and the largest allocated are rarely of
        // the same moment, so their difference is no cache size at all.
        String what = "torch_npu caching allocator (memory_record PTA, reserved - allocated at ready): ";
        if (m.readyUs().isEmpty()) {
            return Optional.of(Entry.unknown(Component.ALLOCATOR_CACHE, what + "needs the ready instant ("
                    + m.readyHow() + ")"));
        }
        Optional<MsprofReading> a = MsprofReading.at(m, pta.get().allocated(), "ready", "ready", true);
        Optional<MsprofReading> r = MsprofReading.at(m, pta.get().reserved(), "ready", "ready", true);
        if (a.isEmpty() || r.isEmpty()) {
            MsprofSeries missing = r.isEmpty() ? pta.get().reserved() : pta.get().allocated();
            return Optional.of(Entry.unknown(Component.ALLOCATOR_CACHE, what + "no value at ready: "
                    + MsprofReading.whyNot(missing, m.readyUs().get(), "ready")));
        }
        long cache = r.get().bytes() - a.get().bytes();
        // two readings of one memory_record row: still that row's measurement, the subtraction shown
        return Optional.of(new Entry(Component.ALLOCATOR_CACHE, cache, Confidence.MEASURED, List.of(r.get().source(), a.get().source()),
                "torch_npu caching allocator: reserved but not allocated at ready (memory_record PTA, " + r.get().note()
                        + "); GE's part (PTA+GE) is in cann_runtime, not here",
                "ready", true, "reserved " + r.get().bytes() + " B - allocated " + a.get().bytes() + " B = " + cache
                        + " B (" + Units.gib(cache) + ")"));
    }
}

package io.hbmledger.ledger.smi;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;

/**
 * The driver's fixed usage from an idle npu-smi sample of the same device (moment
 * {@code baseline}), measured (inferred for rows pasted without their header). It persists while the server runs; without an idle sample it is
 * unknown, never 0. With several idle samples (collection takes a few) the first is used and the
 * note gives their range, so drift is visible.
 */
public final class DriverBaselineRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        List<TaggedObservation> used = new ArrayList<>();
        long procs = 0;
        for (EvidenceSet.FileInfo f : ev.smiFiles(Moment.BASELINE)) {
            List<TaggedObservation> rows = ev.smiRows(f, d.logicalDevice());
            for (Quantity q : List.of(Quantity.HBM_USED, Quantity.MEMORY_USED, Quantity.FB_USED)) {
                TaggedObservation u = rows.stream().filter(t -> t.quantity() == q).findFirst().orElse(null);
                if (u != null) {
                    used.add(u);
                    procs += rows.stream().filter(t -> t.quantity() == Quantity.PROCESS_MEMORY).count();
                    break;
                }
            }
        }
        if (used.isEmpty()) {
            d.decide(Entry.unknown(Component.DRIVER_BASELINE,
                    "no idle " + Accelerator.smiName(ev) + " sample (moment baseline) of this device"));
            return;
        }
        TaggedObservation first = used.get(0);
        String note = "device used in the idle sample taken before the server started";
        if (used.size() > 1) {
            long min = used.stream().mapToLong(t -> t.o().bytes()).min().orElseThrow();
            long max = used.stream().mapToLong(t -> t.o().bytes()).max().orElseThrow();
            note += "; first of " + used.size() + " idle samples, which range " + Units.gib(min) + " to " + Units.gib(max);
        }
        if (procs > 0) {
            note += "; WARNING: the idle sample(s) list " + procs + " process(es) on this device, so it was not idle";
        }
        d.decide(new Entry(Component.DRIVER_BASELINE, first.o().bytes(), SmiReading.confidence(first),
                List.of(first.source()), note, Moment.BASELINE.jsonName(), true, SmiReading.arithmetic(first)));
    }
}

package io.hbmledger.ledger.check;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.run.Moment;
import java.util.List;

/**
 * Compares device samples taken under load or after the workload with the ready ledger's used
 * figure: one check per moment, against the largest sample of that moment (collection samples
 * continuously under load). The difference is growth since ready (the allocator keeps what
 * requests made it reserve), not an activation peak: a sample catches one instant, the peak needs
 * msprof. Growth beyond 2% of capacity warns, since the ready ledger no longer describes the
 * device then.
 */
public final class LaterSamplesCheck implements DeviceRule {

    public static final String NAME = "growth_after_ready";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!"ready".equals(d.moment()) || !d.used().known()) {
            List<String> unused = new java.util.ArrayList<>();
            for (Moment m : List.of(Moment.LOAD, Moment.AFTER)) {
                ev.smiFiles(m).forEach(f -> unused.add(f.file() + " (" + m.jsonName() + ")"));
            }
            if (!unused.isEmpty()) {
                d.check(new Check(NAME, Check.Status.SKIPPED, "samples " + String.join(", ", unused)
                        + " are not used: growth is measured against a ready sample of this device, and there is none;"
                        + " a sample under load is not a ledger of its own"));
            }
            return;
        }
        for (Moment m : List.of(Moment.LOAD, Moment.AFTER)) {
            TaggedObservation max = null;
            int samples = 0;
            for (EvidenceSet.FileInfo f : ev.smiFiles(m)) {
                // every sample of the file (a capture under load holds many), one used row each
                for (List<TaggedObservation> sample : ev.smiSamples(f, d.logicalDevice())) {
                    for (TaggedObservation t : sample) {
                        if (t.quantity() == Quantity.HBM_USED || t.quantity() == Quantity.FB_USED
                                || t.quantity() == Quantity.MEMORY_USED) {
                            samples++;
                            if (max == null || t.o().bytes() > max.o().bytes()) {
                                max = t;
                            }
                            break;
                        }
                    }
                }
            }
            if (max == null) {
                continue;
            }
            long later = max.o().bytes();
            long growth = later - d.used().bytes();
            long tolerance = d.capacity().known() ? d.capacity().bytes() / 50 : d.used().bytes() / 50;
            d.check(new Check(NAME, growth > tolerance ? Check.Status.WARN : Check.Status.PASS,
                    (samples > 1 ? "largest of " + samples + " " + m.jsonName() + " samples " : m.jsonName() + " sample ")
                            + max.source().shortForm() + ": used " + Units.gib(later) + ", "
                            + (growth >= 0 ? "+" : "") + Units.gib(growth)
                            + " since ready; a sample is growth at one instant, not the activation peak (that needs " + Accelerator.profilerNeed(ev) + ")"));
        }
    }
}

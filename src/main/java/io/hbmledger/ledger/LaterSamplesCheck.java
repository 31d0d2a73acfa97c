package io.hbmledger.ledger;

import io.hbmledger.run.Moment;
import java.util.List;
import java.util.Optional;

/**
 * Compares device samples taken under load or after the workload with the ready ledger's used
 * figure. The difference is growth since ready (the allocator keeps what requests made it
 * reserve), not an activation peak: a sample catches one instant, the peak needs msprof. Growth
 * beyond 2% of capacity warns, since the ready ledger no longer describes the device.
 */
final class LaterSamplesCheck implements DeviceRule {

    static final String NAME = "growth_after_ready";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!"ready".equals(d.moment) || !d.used.known()) {
            return;
        }
        for (Moment m : List.of(Moment.LOAD, Moment.AFTER)) {
            for (EvidenceSet.FileInfo f : ev.smiFiles(m)) {
                Optional<TaggedObservation> u = ev.smiRows(f.file(), d.logicalDevice).stream()
                        .filter(t -> t.quantity().equals("hbm_used") || t.quantity().equals("fb_used")
                                || t.quantity().equals("memory_used"))
                        .findFirst();
                if (u.isEmpty()) {
                    continue;
                }
                long later = u.get().o().bytes();
                long growth = later - d.used.bytes();
                long tolerance = d.capacity.known() ? d.capacity.bytes() / 50 : d.used.bytes() / 50;
                d.check(new Check(NAME, growth > tolerance ? Check.Status.WARN : Check.Status.PASS,
                        m.jsonName() + " sample " + u.get().source().shortForm() + ": used " + Units.gib(later)
                                + ", " + (growth >= 0 ? "+" : "") + Units.gib(growth)
                                + " since ready; one sample is growth at an instant, not the activation peak (that needs msprof)"));
            }
        }
    }
}

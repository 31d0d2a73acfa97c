package io.hbmledger.ledger;

import io.hbmledger.ledger.DeviceLedger.Amount;
import io.hbmledger.run.Moment;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Capacity and used memory of the device from an npu-smi sample at the ledger's moment
 * (measured). {@code HBM-Usage(MB)} is MiB (evidence-v1); a chip without HBM (310P) gives its
 * DDR {@code Memory-Usage} instead, and the source says so. A sample without a stated moment is
 * used only when no sample has the right one, and the mixed-moments check then warns.
 */
final class CapacityAndUsedRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        List<Moment> order = "oom".equals(d.moment)
                ? Arrays.asList(Moment.OOM, Moment.AFTER, null)
                : Arrays.asList(Moment.READY, null);
        for (Moment m : order) {
            // One sample per device and moment, never a sum: the last file listed at the moment,
            // and in it the last sample of the device (EvidenceSet.smiRows); the note counts the rest.
            List<EvidenceSet.FileInfo> withDevice = ev.smiFiles(m).stream()
                    .filter(f -> pick(ev.smiRows(f.file(), d.logicalDevice), "hbm_used", "memory_used", "fb_used").isPresent())
                    .toList();
            if (withDevice.isEmpty()) {
                continue;
            }
            EvidenceSet.FileInfo f = withDevice.get(withDevice.size() - 1);
            List<TaggedObservation> rows = ev.smiRows(f.file(), d.logicalDevice);
            TaggedObservation u = pick(rows, "hbm_used", "memory_used", "fb_used").orElseThrow();
            d.sampleFile = f.file();
            d.sampleMoment = m == null ? null : m.jsonName();
            ev.smiKey(f.file(), d.logicalDevice).ifPresent(k -> d.device = k);
            String which = SampleChoice.describe(ev, withDevice, f, d.logicalDevice, u);
            d.used = new Amount(u.o().bytes(), u.source(), note(u, m) + which);
            pick(rows, "hbm_total", "memory_total", "fb_total").ifPresent(c ->
                    d.capacity = new Amount(c.o().bytes(), c.source(), note(c, m)));
            return;
        }
        // No sample at the moment: capacity does not change, so any sample of the device gives it.
        for (EvidenceSet.FileInfo f : ev.files()) {
            if (!EvidenceSet.isDeviceSample(f.format())) {
                continue;
            }
            List<TaggedObservation> rows = ev.smiRows(f.file(), d.logicalDevice);
            Optional<TaggedObservation> cap = pick(rows, "hbm_total", "memory_total", "fb_total");
            if (cap.isPresent()) {
                ev.smiKey(f.file(), d.logicalDevice).ifPresent(k -> d.device = k);
                TaggedObservation c = cap.get();
                d.capacity = new Amount(c.o().bytes(), c.source(),
                        "from the " + (f.moment() == null ? "untagged" : f.moment().jsonName())
                                + " sample; capacity does not change");
                break;
            }
        }
        d.used = Amount.unknown("no npu-smi sample at " + d.moment
                + (ev.files().stream().anyMatch(f -> EvidenceSet.isDeviceSample(f.format()))
                        ? " (the run's samples are from other moments)" : ""));
    }

    /** The first quantity, in the order given, that the rows have. */
    private static Optional<TaggedObservation> pick(List<TaggedObservation> rows, String... quantities) {
        for (String q : quantities) {
            Optional<TaggedObservation> h = rows.stream().filter(t -> t.quantity().equals(q)).findFirst();
            if (h.isPresent()) {
                return h;
            }
        }
        return Optional.empty();
    }

    private static String note(TaggedObservation t, Moment m) {
        String what = t.quantity().startsWith("memory_") ? "DDR Memory-Usage (this chip shows no HBM)"
                : t.quantity().startsWith("fb_") ? "nvidia-smi FB memory" : "HBM-Usage";
        return what + ", " + (m == null ? "sample without a stated moment" : m.jsonName() + " sample");
    }
}

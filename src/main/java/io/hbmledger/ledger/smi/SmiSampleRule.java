package io.hbmledger.ledger.smi;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceLedger.Amount;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.owner.UsedRule;
import io.hbmledger.ledger.vllm.LedgerMomentRule;
import io.hbmledger.run.Moment;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Owner of the device key (the sample's {@code npu:N/chip:C} or {@code gpu:N}; without a sample of
 * the device, {@link Accelerator#deviceKey}), capacity and the npu-smi sample, and of that sample's reading of
 * used ({@link DeviceDraft#smiUsed()}; {@link UsedRule} decides used from it): capacity and used
 * memory of the device from an npu-smi sample at the ledger's moment
 * (measured; used worked out from {@code -t usages}' capacity x rate is inferred, and so are rows
 * pasted without their header, see {@link SmiReading}). {@code HBM-Usage(MB)} is MiB (evidence-v1); a chip without HBM (310P) gives its
 * DDR {@code Memory-Usage} instead, and the source says so. A sample without a stated moment is
 * used only when no sample has the right one, and the mixed-moments check then warns.
 */
public final class SmiSampleRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        sample(ev, d);
        if (!d.deviceKeyDecided() && Accelerator.of(ev) != Accelerator.Kind.UNKNOWN) {
            // no sample names the device: the accelerator's own key for the logical id, not "device:N"
            d.decideDeviceKey(Accelerator.deviceKey(Accelerator.of(ev), d.logicalDevice()));
        }
    }

    private void sample(EvidenceSet ev, DeviceDraft d) {
        List<Moment> order = LedgerMomentRule.failure(d.moment())
                ? Arrays.asList(Moment.OOM, Moment.AFTER, null)
                : Arrays.asList(Moment.READY, null);
        for (Moment m : order) {
            // One sample per device and moment, never a sum: the last file listed at the moment,
            // and in it the last sample of the device (EvidenceSet.smiRows); the note counts the rest.
            List<EvidenceSet.FileInfo> withDevice = ev.smiFiles(m).stream()
                    .filter(f -> hasUsed(ev.smiRows(f, d.logicalDevice())))
                    .toList();
            if (withDevice.isEmpty()) {
                continue;
            }
            EvidenceSet.FileInfo f = withDevice.get(withDevice.size() - 1);
            List<TaggedObservation> rows = ev.smiRows(f, d.logicalDevice());
            d.decideSample(new DeviceDraft.SmiSample(f.file(), m == null ? null : m.jsonName()));
            ev.smiKey(f, d.logicalDevice()).ifPresent(d::decideDeviceKey);
            Optional<UsageRate> rate = UsageRate.of(rows);
            if (pick(rows, Quantity.HBM_USED, Quantity.MEMORY_USED, Quantity.FB_USED).isEmpty() && rate.isPresent()) {
                UsageRate r = rate.get();
                String which = SampleChoice.describe(ev, withDevice, f, d.logicalDevice(), r.rate());
                d.decideCapacity(new Amount(r.capacity().o().bytes(), r.capacity().source(), r.what() + " (npu-smi info -t usages), "
                        + (m == null ? "sample without a stated moment" : m.jsonName() + " sample")));
                // a product of two readings, not a reading: inferred, with the arithmetic (README)
                d.decideSmiUsed(Amount.inferred(r.usedBytes(), r.rate().source(), r.note() + ", "
                        + (m == null ? "sample without a stated moment" : m.jsonName() + " sample") + which,
                        r.arithmetic()));
                return;
            }
            TaggedObservation u = pick(rows, Quantity.HBM_USED, Quantity.MEMORY_USED, Quantity.FB_USED).orElseThrow();
            String which = SampleChoice.describe(ev, withDevice, f, d.logicalDevice(), u);
            d.decideSmiUsed(SmiReading.amount(u, note(u, m) + which));
            pick(rows, Quantity.HBM_TOTAL, Quantity.MEMORY_TOTAL, Quantity.FB_TOTAL).ifPresent(c ->
                    d.decideCapacity(SmiReading.amount(c, note(c, m))));
            return;
        }
        // No sample at the moment: capacity does not change, so any sample of the device gives it.
        for (EvidenceSet.FileInfo f : ev.files()) {
            if (!f.format().isDeviceSample()) {
                continue;
            }
            List<TaggedObservation> rows = ev.smiRows(f, d.logicalDevice());
            Optional<TaggedObservation> cap = pick(rows, Quantity.HBM_TOTAL, Quantity.HBM_CAPACITY, Quantity.MEMORY_TOTAL, Quantity.MEMORY_CAPACITY, Quantity.FB_TOTAL);
            if (cap.isPresent()) {
                ev.smiKey(f, d.logicalDevice()).ifPresent(d::decideDeviceKey);
                TaggedObservation c = cap.get();
                d.decideCapacity(SmiReading.amount(c,
                        "from the " + (f.moment() == null ? "untagged" : f.moment().jsonName())
                                + " sample; capacity does not change"));
                break;
            }
        }
        d.decideSmiUsed(Amount.unknown(whyNoUsed(ev, d)));
        if (!d.capacity().known()) {
            d.decideCapacity(Amount.unknown("no " + Accelerator.smiName(ev) + " sample shows this device"));
        }
    }

    /** Says truthfully why used is unknown: which samples the run has, and what they lack. */
    private static String whyNoUsed(EvidenceSet ev, DeviceDraft d) {
        String smi = Accelerator.smiName(ev);
        List<String> have = new java.util.ArrayList<>();
        List<String> atMoment = new java.util.ArrayList<>();
        for (EvidenceSet.FileInfo f : ev.files()) {
            if (!f.format().isDeviceSample()) {
                continue;
            }
            String name = f.file() + " (" + (f.moment() == null ? "no moment" : f.moment().jsonName()) + ")";
            if (!ev.smiRows(f, d.logicalDevice()).isEmpty()) {
                have.add(name);
            }
            if (f.moment() != null && f.moment().jsonName().equals(d.moment())) {
                atMoment.add(f.file());
            }
        }
        if (have.isEmpty() && atMoment.isEmpty()) {
            return ev.files().stream().anyMatch(f -> f.format().isDeviceSample())
                    ? "no " + smi + " sample shows this device" : "no " + smi + " sample in the run";
        }
        if (!atMoment.isEmpty()) {
            return "the " + d.moment() + " sample(s) " + String.join(", ", atMoment) + " show no used memory of this device";
        }
        return "no " + smi + " sample at " + d.moment() + "; this device appears only in " + String.join(", ", have);
    }

    private static boolean hasUsed(List<TaggedObservation> rows) {
        return pick(rows, Quantity.HBM_USED, Quantity.MEMORY_USED, Quantity.FB_USED).isPresent() || UsageRate.of(rows).isPresent();
    }

    /** The first quantity, in the order given, that the rows have. */
    private static Optional<TaggedObservation> pick(List<TaggedObservation> rows, Quantity... quantities) {
        for (Quantity q : quantities) {
            Optional<TaggedObservation> h = rows.stream().filter(t -> t.quantity() == q).findFirst();
            if (h.isPresent()) {
                return h;
            }
        }
        return Optional.empty();
    }

    private static final Set<Quantity> DDR = EnumSet.of(Quantity.MEMORY_USED, Quantity.MEMORY_TOTAL, Quantity.MEMORY_CAPACITY);
    private static final Set<Quantity> FB = EnumSet.of(Quantity.FB_USED, Quantity.FB_TOTAL);

    private static String note(TaggedObservation t, Moment m) {
        String what = DDR.contains(t.quantity()) ? "DDR Memory-Usage (this chip shows no HBM)"
                : FB.contains(t.quantity()) ? "nvidia-smi FB memory" : "HBM-Usage";
        return what + ", " + (m == null ? "sample without a stated moment" : m.jsonName() + " sample");
    }
}

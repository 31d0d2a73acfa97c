package io.hbmledger.ledger.check;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Device samples that do not describe the same machine must not be read together: a baseline
 * table of an 8-chip 910B host and a ready table of a 16-chip Atlas A3 would give one device two
 * different identities. The check compares, across the run's device-sample files, what this
 * device is called, whether the table shows chip ids (Phy-ID), how many chips it lists and the
 * device's capacity; any difference warns.
 */
public final class SampleLayoutCheck implements DeviceRule {

    static final String NAME = "samples_same_layout";

    /** The capacity column of an npu-smi or nvidia-smi usage row. */
    private static final Set<Quantity> CAPACITY = EnumSet.of(Quantity.HBM_TOTAL, Quantity.MEMORY_TOTAL, Quantity.FB_TOTAL);

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        List<EvidenceSet.FileInfo> files = ev.files().stream().filter(f -> f.format().isDeviceSample()).toList();
        if (files.size() < 2) {
            return;
        }
        Set<String> shapes = new LinkedHashSet<>();
        List<String> described = new ArrayList<>();
        for (EvidenceSet.FileInfo f : files) {
            List<TaggedObservation> all = ev.smiOf(f);
            if (all.stream().allMatch(t -> t.o().context().device() == null)) {
                continue; // e.g. npu-smi info -t usages -i N: no table layout to compare
            }
            long chips = all.stream().map(t -> t.o().context().device()).filter(Objects::nonNull).distinct().count();
            boolean ids = all.stream().anyMatch(t -> t.o().context().deviceId() != null);
            String key = ev.smiKey(f, d.logicalDevice()).orElse("absent");
            Long cap = ev.smiRows(f, d.logicalDevice()).stream()
                    .filter(t -> CAPACITY.contains(t.quantity())).map(t -> t.o().bytes()).findFirst().orElse(null);
            String shape = key + ", " + chips + " chips, " + (ids ? "with" : "no") + " Phy-ID"
                    + (cap == null ? "" : ", capacity " + Units.gib(cap));
            shapes.add(shape);
            described.add(ev.shown(f) + ": " + shape);
        }
        if (described.size() < 2) {
            return;
        }
        if (shapes.size() == 1) {
            d.check(new Check(NAME, Check.Status.PASS, "every device sample shows this device alike (" + shapes.iterator().next() + ")"));
        } else {
            d.check(new Check(NAME, Check.Status.WARN, "the device samples disagree about device " + d.logicalDevice()
                    + " (" + String.join("; ", described) + "): they come from different hosts or chip layouts,"
                    + " so figures from them do not belong in one ledger"));
        }
    }
}

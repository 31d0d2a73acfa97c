package io.hbmledger.ledger.smi;

import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The driver's fixed usage from an idle npu-smi / nvidia-smi sample of the same device (moment
 * {@code baseline}), measured (inferred for rows pasted without their header). It persists while
 * the server runs; without an idle sample it is unknown, never 0. With several idle samples
 * (collection takes a few) the first is used and the note gives their range, so drift is visible.
 *
 * <p>A process the idle sample lists holds memory of its own, not the driver's (another tenant,
 * a server left from an earlier start): it is taken out of the baseline, with the subtraction
 * shown, and counted under {@code other_processes} ({@link ProcessTableRule}).
 */
public final class DriverBaselineRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        Optional<IdleSample> idle = IdleSample.of(ev, d.logicalDevice());
        if (idle.isEmpty()) {
            d.decide(Entry.unknown(Component.DRIVER_BASELINE,
                    "no idle " + Accelerator.smiName(ev) + " sample (moment baseline) of this device"));
            return;
        }
        IdleSample s = idle.get();
        TaggedObservation first = s.used();
        String note = "device used in the idle sample taken before the server started";
        if (s.allUsed().size() > 1) {
            long min = s.allUsed().stream().mapToLong(t -> t.o().bytes()).min().orElseThrow();
            long max = s.allUsed().stream().mapToLong(t -> t.o().bytes()).max().orElseThrow();
            note += "; first of " + s.allUsed().size() + " idle samples, which range " + Units.gib(min) + " to " + Units.gib(max);
        }
        if (!s.later().isEmpty()) {
            note += "; a later idle sample lists " + IdleSample.describe(s.later()) + ", not in this figure";
        }
        if (s.processes().isEmpty()) {
            d.decide(new Entry(Component.DRIVER_BASELINE, first.o().bytes(), SmiReading.confidence(first),
                    List.of(first.source()), note, Moment.BASELINE.jsonName(), true, SmiReading.arithmetic(first)));
            return;
        }
        long used = first.o().bytes();
        long procs = s.processBytes();
        String listed = IdleSample.describe(s.processes());
        if (procs > used) {
            d.decide(Entry.unknown(Component.DRIVER_BASELINE, "the idle sample lists more process memory (" + listed
                    + ") than device used (" + Units.gib(used) + "): the driver's own share cannot be told"));
            return;
        }
        List<Source> sources = new ArrayList<>(List.of(first.source()));
        s.processes().forEach(t -> sources.add(t.source()));
        // one sample's readings subtracted stay measured (README); rows read without their header make it inferred
        d.decide(new Entry(Component.DRIVER_BASELINE, used - procs, s.inferred() ? Confidence.INFERRED : Confidence.MEASURED,
                sources, note + ", minus the memory of the " + (s.processes().size() == 1 ? "process" : "processes")
                        + " it lists on this device (" + listed + "): other processes' memory, not the driver's"
                        + " (other_processes)", Moment.BASELINE.jsonName(), true,
                "used " + used + " B - processes " + procs + " B = " + (used - procs) + " B (" + Units.gib(used - procs) + ")"));
    }
}

package io.hbmledger.ledger;

import io.hbmledger.run.Moment;
import java.util.List;
import java.util.Optional;

/**
 * The driver's fixed usage from an idle npu-smi sample of the same device (moment
 * {@code baseline}), measured. It persists while the server runs; without an idle sample it is
 * unknown, never 0.
 */
final class DriverBaselineRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        for (EvidenceSet.FileInfo f : ev.smiFiles(Moment.BASELINE)) {
            List<TaggedObservation> rows = ev.smiRows(f.file(), d.logicalDevice);
            Optional<TaggedObservation> used = rows.stream().filter(t -> t.quantity().equals("hbm_used")).findFirst();
            if (used.isEmpty()) {
                used = rows.stream().filter(t -> t.quantity().equals("memory_used")).findFirst();
            }
            if (used.isPresent()) {
                TaggedObservation u = used.get();
                long procs = rows.stream().filter(t -> t.quantity().equals("process_memory")).count();
                String note = "device used in the idle sample taken before the server started";
                if (procs > 0) {
                    note += "; WARNING: that sample lists " + procs + " process(es) on this device, so it was not idle";
                }
                d.put(new Entry(Component.DRIVER_BASELINE, u.o().bytes(), Confidence.MEASURED,
                        List.of(u.source()), note, Moment.BASELINE.jsonName(), true, null));
                return;
            }
        }
        d.put(Entry.unknown(Component.DRIVER_BASELINE,
                "no idle npu-smi sample (moment baseline) of this device"));
    }
}

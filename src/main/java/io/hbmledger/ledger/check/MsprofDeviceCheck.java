package io.hbmledger.ledger.check;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.msprof.MsprofDeviceMap;
import io.hbmledger.ledger.msprof.MsprofReading;
import java.util.ArrayList;
import java.util.List;

/**
 * Ties of this device to the msprof data: which msprof device it is and how the ids were
 * reconciled ({@code msprof_device_ids}), and whether the ready instant lies inside the profiled
 * window ({@code msprof_timeline}).
 */
public final class MsprofDeviceCheck implements DeviceRule {

    public static final String IDS = "msprof_device_ids";
    static final String TIMELINE = "msprof_timeline";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        if (!m.present()) {
            return;
        }
        MsprofDeviceMap map = MsprofDeviceMap.of(m, ev.layout());
        List<MsprofDeviceMap.Match> matches = map.matches(d.logicalDevice());
        if (matches.isEmpty()) {
            List<String> seen = new ArrayList<>();
            m.exports().forEach(e -> seen.addAll(e.summary().devices()));
            d.check(new Check(IDS, Check.Status.WARN, "no msprof data for device " + d.logicalDevice()
                    + " (the export holds " + (seen.isEmpty() ? "no device" : String.join(", ", seen)) + ")"));
            return;
        }
        MsprofDeviceMap.Match first = matches.get(0);
        String more = matches.size() > 1 ? "; also in " + matches.subList(1, matches.size()).stream()
                .map(x -> x.key() + " of " + x.export().name()).toList() + " (first used)" : "";
        MsprofSummary.DeviceMemory dm = first.export().summary().device(first.key());
        boolean folder = dm.modules().values().stream().anyMatch(MsprofSeries::deviceFromFolder)
                || dm.wholeDevice().map(MsprofSeries::deviceFromFolder).orElse(false);
        d.check(new Check(IDS, first.reconciled() || matches.size() > 1 ? Check.Status.WARN : Check.Status.PASS,
                first.how() + (folder ? "; device taken from the device_N folder (no device column)" : "") + more));
        MsprofSeries timed = dm.wholeDevice().orElse(dm.modules().isEmpty() ? null : dm.modules().values().iterator().next());
        if (timed == null || timed.firstTimestampUs() == null) {
            return;
        }
        String window = MsprofReading.time(timed.firstTimestampUs()) + " .. " + MsprofReading.time(timed.lastTimestampUs());
        if (m.readyUs().isEmpty()) {
            d.check(new Check(TIMELINE, Check.Status.SKIPPED, "the run gives no ready instant (" + m.readyHow() + "):"
                    + " msprof lines show maxima over the profiled window " + window));
            return;
        }
        long ready = m.readyUs().get();
        if (MsprofReading.at(m, timed, "ready", "ready").isPresent()) {
            d.check(new Check(TIMELINE, Check.Status.PASS, "ready " + MsprofReading.time(ready) + " (" + m.readyFrom()
                    + ") lies inside the profiled window " + window));
        } else {
            d.check(new Check(TIMELINE, Check.Status.WARN, MsprofReading.whyNot(timed, ready, "ready")
                    + "; msprof lines fall back to maxima over the window"));
        }
    }
}

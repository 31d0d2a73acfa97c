package io.hbmledger.ledger.owner;

import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.msprof.MsprofDeviceMap;
import io.hbmledger.ledger.smi.ProcessTableRule;





/**
 * Used minus the counted known entries at the same moment, signed: never forced to zero and
 * never hidden. The note says what the residual can hold given which entries are present.
 */
public final class ResidualRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!d.used().known()) {
            d.decideResidual(new DeviceDraft.Residual(null,
                    withMsprof(ev, d, "unknown: device used at " + d.moment() + " is unknown")));
            return;
        }
        long sum = 0;
        for (Entry e : d.entries()) {
            if (e.known() && e.counted()) {
                sum += e.bytes();
            }
        }
        long residual = d.used().bytes() - sum;
        d.decideResidual(new DeviceDraft.Residual(residual, withMsprof(ev, d, note(ev, d, residual))));
    }

    /** With msprof data for this device, the note says which measured lines are out of the residual. */
    private static String withMsprof(EvidenceSet ev, DeviceDraft d, String note) {
        boolean profiled = ev.msprof().present()
                && !MsprofDeviceMap.of(ev.msprof(), ev.layout()).matches(d.logicalDevice()).isEmpty();
        return profiled && d.hasKnownCounted(Component.HCCL) && d.hasKnownCounted(Component.CANN_RUNTIME)
                ? note + "; HCCL and the CANN runtime are measured lines above (msprof), so not in it" : note;
    }

    /** What the residual can hold, given which entries are present. */
    private static String note(EvidenceSet ev, DeviceDraft d, long residual) {
        if (residual < 0) {
            // A negative residual is a finding, not a remainder: describing it as uncovered memory
            // would hide a double count.
            return "negative: the counted lines add up to more than the device shows, so a part is"
                    + " counted twice or was measured at another moment; vLLM prints figures rounded to 0.01 GiB,"
                    + " which explains a few MiB per line at most";
        }
        boolean splitByProfiler = d.hasKnownCounted(Component.HCCL);
        if (ProcessTableRule.coversUsed(d)) {
            return "0 by construction: the processes' memory is not split here and outside_processes is used minus process memory";
        }
        if (d.hasKnownCounted(Component.OUTSIDE_PROCESSES)) {
            return "memory of the serving process that the listed components do not cover: "
                    + (Accelerator.gpu(ev) ? "NCCL buffers, the CUDA context"
                            : splitByProfiler ? "CANN workspace outside the modules msprof measured"
                            : "HCCL buffers, CANN runtime workspace")
                    + ", non-torch memory, rounding of vLLM's printed figures";
        }
        // say only what the residual can really hold: a measured line (HCCL from msprof, the
        // baseline) is not in it, and a line that is unknown here is in it whole
        java.util.List<String> in = new java.util.ArrayList<>();
        in.add(d.hasKnownCounted(Component.DRIVER_BASELINE) ? "driver growth since baseline" : "the driver baseline");
        if (!splitByProfiler) {
            in.add(Accelerator.gpu(ev) ? "NCCL, the CUDA context" : "HCCL, CANN runtime");
        }
        in.add("other processes");
        in.add("rounding");
        java.util.List<String> unknown = new java.util.ArrayList<>();
        for (String c : java.util.List.of(Component.WEIGHTS, Component.KV_CACHE, Component.GRAPH_POOL)) {
            if (d.get(c).map(e -> !e.known()).orElse(false)) {
                unknown.add(c);
            }
        }
        return "used minus the counted entries: " + String.join(", ", in)
                + (unknown.isEmpty() ? "" : "; and all of " + String.join(", ", unknown)
                        + " that is resident, as those lines are unknown here");
    }
}

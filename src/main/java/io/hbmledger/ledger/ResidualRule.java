package io.hbmledger.ledger;

/**
 * Used minus the counted known entries at the same moment, signed: never forced to zero and
 * never hidden. The note says what the residual can hold given which entries are present.
 */
final class ResidualRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!d.used.known()) {
            d.residual = null;
            d.residualNote = "unknown: device used at " + d.moment + " is unknown";
            return;
        }
        long sum = 0;
        for (Entry e : d.entries()) {
            if (e.known() && e.counted()) {
                sum += e.bytes();
            }
        }
        d.residual = d.used.bytes() - sum;
        if (d.residual < 0) {
            // A negative residual is a finding, not a remainder: describing it as uncovered memory
            // would hide a double count.
            d.residualNote = "negative: the counted lines add up to more than the device shows, so a part is"
                    + " counted twice or was measured at another moment; vLLM prints figures rounded to 0.01 GiB,"
                    + " which explains a few MiB per line at most";
            return;
        }
        boolean splitByProfiler = d.hasKnownCounted(Component.HCCL);
        if (d.hasKnownCounted(Component.SERVER_PROCESSES) && d.hasKnownCounted(Component.OUTSIDE_PROCESSES)) {
            d.residualNote = "0 by construction: the server's memory is not split here and outside_processes is used minus process memory";
        } else if (d.hasKnownCounted(Component.OUTSIDE_PROCESSES)) {
            d.residualNote = "memory of the serving process that the listed components do not cover: "
                    + (Accelerator.gpu(ev) ? "NCCL buffers, the CUDA context"
                            : splitByProfiler ? "CANN workspace outside the modules msprof measured"
                            : "HCCL buffers, CANN runtime workspace")
                    + ", non-torch memory, rounding of vLLM's printed figures";
        } else {
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
            d.residualNote = "used minus the counted entries: " + String.join(", ", in)
                    + (unknown.isEmpty() ? "" : "; and all of " + String.join(", ", unknown)
                            + " that is resident, as those lines are unknown here");
        }
    }
}

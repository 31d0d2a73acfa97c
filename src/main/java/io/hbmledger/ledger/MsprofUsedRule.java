package io.hbmledger.ledger;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import java.util.Optional;

/**
 * Device used at ready from msprof's npu_mem {@code Device} series (the whole device's HBM) when
 * no npu-smi sample gives it; when both do, they are compared ({@code msprof_vs_npu_smi}).
 */
final class MsprofUsedRule implements DeviceRule {

    static final String CHECK = "msprof_vs_npu_smi";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        if (m.readyUs().isEmpty()) {
            return;
        }
        Optional<MsprofDeviceMap.Match> match = MsprofDeviceMap.atReady(ev, d);
        if (match.isEmpty()) {
            return;
        }
        MsprofSummary.DeviceMemory dm = match.get().memory();
        Optional<MsprofSeries> dev = dm.wholeDevice();
        if (dev.isEmpty()) {
            return;
        }
        Optional<MsprofReading> r = MsprofReading.at(m, dev.get(), "ready", "ready");
        if (r.isEmpty()) {
            return;
        }
        long v = r.get().bytes();
        if (!d.used.known()) {
            d.used = new DeviceLedger.Amount(v, r.get().source(),
                    "msprof npu_mem Device (whole device HBM) of " + match.get().key() + ", " + r.get().note());
            return;
        }
        long diff = v - d.used.bytes();
        long tol = d.capacity.known() ? d.capacity.bytes() / 50 : d.used.bytes() / 50;
        String detail = "msprof npu_mem Device at ready " + Units.gib(v) + " vs npu-smi used " + Units.gib(d.used.bytes())
                + " (difference " + Units.gib(diff) + "; " + r.get().note() + ")";
        d.check(new Check(CHECK, Math.abs(diff) <= tol ? Check.Status.PASS : Check.Status.WARN,
                Math.abs(diff) <= tol ? detail : detail + "; more than 2% apart: the npu-smi sample was not taken at the ready instant, or the device ids do not match"));
    }
}

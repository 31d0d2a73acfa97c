package io.hbmledger.ledger.owner;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceLedger.Amount;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.check.MsprofUsedCheck;
import io.hbmledger.ledger.msprof.MsprofDeviceMap;
import io.hbmledger.ledger.msprof.MsprofReading;
import io.hbmledger.ledger.smi.SmiSampleRule;
import java.util.Optional;

/**
 * Owner of the device's used memory. Precedence, by design and not by rule order:
 * <ol>
 *   <li>the npu-smi (nvidia-smi) sample at the ledger's moment ({@link SmiSampleRule}): the figure
 *       the user sees on the device, and the one the process table and the residual are taken
 *       against;</li>
 *   <li>msprof's npu_mem {@code Device} series at ready (the whole device's HBM), only when no
 *       sample shows used; when both exist {@link MsprofUsedCheck} compares them;</li>
 *   <li>otherwise unknown, with the sample rule's reason.</li>
 * </ol>
 */
public final class UsedRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        Amount smi = d.smiUsed();
        if (smi.known()) {
            d.decideUsed(smi);
            return;
        }
        Optional<Amount> msprof = msprofAtReady(ev, d)
                .map(r -> new Amount(r.reading().bytes(), r.reading().source(),
                        "msprof npu_mem Device (whole device HBM) of " + r.key() + ", " + r.reading().note()));
        d.decideUsed(msprof.orElse(smi));
    }

    /** msprof's whole-device HBM at ready, with the device key of the profile it came from. */
    public record MsprofUsed(MsprofReading reading, String key) {
    }

    /** msprof's npu_mem Device value at the ready instant for this device, when the profile has one. */
    public static Optional<MsprofUsed> msprofAtReady(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        if (m.readyUs().isEmpty()) {
            return Optional.empty();
        }
        Optional<MsprofDeviceMap.Match> match = MsprofDeviceMap.atReady(ev, d);
        if (match.isEmpty()) {
            return Optional.empty();
        }
        Optional<MsprofSeries> dev = match.get().memory().wholeDevice();
        if (dev.isEmpty()) {
            return Optional.empty();
        }
        return MsprofReading.at(m, dev.get(), "ready", "ready").map(r -> new MsprofUsed(r, match.get().key()));
    }
}

package io.hbmledger.ledger.check;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.owner.UsedRule;
import java.util.Optional;

/**
 * {@code msprof_vs_npu_smi}: when an npu-smi sample gives used (and so {@link UsedRule} took it),
 * msprof's npu_mem {@code Device} value at ready should agree with it to within 2% of capacity.
 */
public final class MsprofUsedCheck implements DeviceRule {

    static final String CHECK = "msprof_vs_npu_smi";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!d.smiUsed().known()) {
            return;
        }
        Optional<UsedRule.MsprofUsed> r = UsedRule.msprofAtReady(ev, d);
        if (r.isEmpty()) {
            return;
        }
        long v = r.get().reading().bytes();
        long used = d.used().bytes();
        long diff = v - used;
        long tol = d.capacity().known() ? d.capacity().bytes() / 50 : used / 50;
        String detail = "msprof npu_mem Device at ready " + Units.gib(v) + " vs npu-smi used " + Units.gib(used)
                + " (difference " + Units.gib(diff) + "; " + r.get().reading().note() + ")";
        d.check(new Check(CHECK, Math.abs(diff) <= tol ? Check.Status.PASS : Check.Status.WARN,
                Math.abs(diff) <= tol ? detail : detail + "; more than 2% apart: the npu-smi sample was not taken at the ready instant, or the device ids do not match"));
    }
}

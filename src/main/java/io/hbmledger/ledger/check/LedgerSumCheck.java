package io.hbmledger.ledger.check;

import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.smi.ProcessTableRule;






/**
 * Does the ledger explain what the device shows? Within 2% of capacity passes; entries that add
 * up to more than used (by more than that) fail, since something is counted twice or comes from
 * another moment; a larger unexplained part warns.
 */
public final class LedgerSumCheck implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (d.residual() == null) {
            d.check(new Check(Check.LEDGER_SUM_VS_USED, Check.Status.SKIPPED,
                    "device used at " + d.moment() + " is unknown (no " + Accelerator.smiName(ev) + " sample at that moment)"));
            return;
        }
        long used = d.used().bytes();
        if (d.entries().stream().noneMatch(e -> e.known() && e.counted())) {
            // "counted entries 0.00 GiB" would read as a measured zero; there is nothing to compare
            d.check(new Check(Check.LEDGER_SUM_VS_USED, Check.Status.SKIPPED, "no ledger line is known at "
                    + d.moment() + ", so nothing explains used " + Units.gib(used) + "; the residual is all of it"));
            return;
        }
        long sum = used - d.residual();
        String detail = "counted entries " + Units.gib(sum) + " vs used " + Units.gib(used)
                + ": residual " + Units.gib(d.residual());
        if (ProcessTableRule.coversUsed(d)) {
            d.check(new Check(Check.LEDGER_SUM_VS_USED, Check.Status.SKIPPED,
                    detail + " by construction (no split of the processes' memory to check)"));
            return;
        }
        long tolerance = d.capacity().known() ? d.capacity().bytes() / 50 : used / 50;
        Check.Status s;
        if (Math.abs(d.residual()) <= tolerance) {
            s = Check.Status.PASS;
        } else if (d.residual() < 0) {
            s = Check.Status.FAIL;
            detail += "; the entries exceed used: a figure is counted twice or comes from another moment";
        } else {
            s = Check.Status.WARN;
            detail += d.capacity().known() ? "; more than 2% of capacity is unexplained"
                    : "; more than 2% of used is unexplained (capacity unknown)";
        }
        d.check(new Check(Check.LEDGER_SUM_VS_USED, s, detail));
    }
}

package io.hbmledger.ledger.check;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.vllm.LedgerMomentRule;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Warns when counted entries come from a moment other than the ledger's. Start-up log figures
 * describe allocations that last to ready (weights, KV blocks, graph pool), and the driver
 * baseline is by definition an idle sample, so those are not mixing. A device sample without a
 * stated moment is.
 */
public final class MixedMomentsCheck implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        Set<String> fits = LedgerMomentRule.failure(d.moment()) ? Set.of("oom", "startup", "static", LedgerMomentRule.FAILED_START)
                : Set.of(d.moment(), "startup", "static");
        List<String> odd = new ArrayList<>();
        for (Entry e : d.entries()) {
            if (!e.known() || !e.counted()) {
                continue;
            }
            if (e.component().equals(Component.DRIVER_BASELINE) && "baseline".equals(e.moment())) {
                continue;
            }
            if (e.moment() == null || !fits.contains(e.moment())) {
                odd.add(e.component() + " (" + (e.moment() == null ? "moment not stated" : e.moment()) + ")");
            }
        }
        if (d.used().known() && d.used().note() != null && d.used().note().contains("without a stated moment")) {
            // the ledger's moment may be one no file can be given (failed_start): then the names that can
            odd.add("used (sample without a stated moment: " + (Moment.parse(d.moment()).isPresent()
                    ? "if it was taken at " + d.moment() + ", say so with --moment FILE=" + d.moment()
                            + " or evidence[].moment; otherwise name the moment it was taken at)"
                    : "name the moment it was taken at with --moment FILE=MOMENT, one of " + Moment.names()
                            + ", or evidence[].moment)"));
        }
        if (odd.isEmpty()) {
            d.check(new Check(Check.MIXED_MOMENTS, Check.Status.PASS,
                    "every counted entry describes " + d.moment()
                            + ("ready".equals(d.moment()) ? " (start-up figures last until ready)" : "")));
        } else {
            d.check(new Check(Check.MIXED_MOMENTS, Check.Status.WARN,
                    "taken at another moment than " + d.moment() + ": " + String.join(", ", odd)));
        }
    }
}

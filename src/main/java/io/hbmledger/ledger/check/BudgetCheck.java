package io.hbmledger.ledger.check;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.vllm.OomDevices;
import io.hbmledger.ledger.vllm.AskedUtilizationRule;
import io.hbmledger.ledger.vllm.RankPick;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * vLLM's memory budget (gpu_memory_utilization x the total it saw) against what the device
 * shows, and vLLM's total against npu-smi's capacity. The server's share of the device is the
 * serving processes' memory when the process table gives it, else used minus the driver
 * baseline.
 */
public final class BudgetCheck implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (d.ranks().isEmpty()) {
            return;
        }
        int rank = d.ranks().get(0);
        Optional<RankPick.Picked> util = RankPick.pick(AskedUtilizationRule.used(ev), rank, ev.layout());
        Optional<RankPick.Picked> total = RankPick.pick(ev.vllm(Quantity.TOTAL_MEMORY), rank, ev.layout());
        Optional<TaggedObservation> oomTotal = OomDevices.of(ev, d.logicalDevice()).stream()
                .filter(t -> t.quantity() == Quantity.OOM_TOTAL_CAPACITY).findFirst();
        Long t = total.map(p -> p.t().o().bytes()).orElse(oomTotal.map(o -> o.o().bytes()).orElse(null));
        Source tSrc = total.map(p -> p.t().source()).orElse(oomTotal.map(TaggedObservation::source).orElse(null));
        if (t != null && d.capacity().known()) {
            d.check(TotalVsCapacity.check(t, tSrc, d.capacity().bytes(), Accelerator.smiName(ev)));
        }
        // Fallbacks, each said in the check: run.json's utilization when the log prints none, and
        // the device capacity when the log gives no total (the engine sees less than capacity).
        Double u = util.map(p -> p.t().o().value()).orElse(ev.layout().utilization());
        String uText = util.map(p -> p.t().o().text() + " (" + p.t().source().file() + ":" + p.t().o().line() + ")")
                .orElse(u == null ? null : u + " (run.json deployment.gpu_memory_utilization)");
        String tNote = "";
        if (t == null && d.capacity().known()) {
            t = d.capacity().bytes();
            tNote = " (" + Accelerator.smiName(ev) + " capacity, as the log gives no total: the engine sees somewhat less,"
                    + " so this budget is an upper bound)";
        }
        if (u == null || t == null) {
            d.check(new Check(Check.VLLM_BUDGET_VS_DEVICE, Check.Status.SKIPPED,
                    "the log gives no " + (u == null ? "gpu_memory_utilization" : "total memory")));
            return;
        }
        // vLLM's own product (V0 "total_gpu_memory (X) x gpu_memory_utilization (u) = Y") is more
        // precise than one worked from its rounded total, so it wins when printed.
        Optional<RankPick.Picked> printed = RankPick.pick(ev.vllm(Quantity.INSTANCE_BUDGET), rank, ev.layout());
        long budget;
        String head;
        if (printed.isPresent()) {
            budget = printed.get().t().o().bytes();
            head = "budget " + Units.gib(budget) + " as vLLM printed it (" + printed.get().t().source().shortForm() + ")";
        } else {
            budget = BigDecimal.valueOf(u).multiply(BigDecimal.valueOf(t))
                    .setScale(0, RoundingMode.FLOOR).longValueExact();
            head = util.isPresent()
                    ? "budget " + util.get().t().o().text() + " x " + Units.gib(t) + tNote + " = " + Units.gib(budget)
                            + " (" + util.get().t().source().file() + ":" + util.get().t().o().line() + ")"
                    : "budget " + uText + " x " + Units.gib(t) + tNote + " = " + Units.gib(budget);
        }
        Long share = null;
        String what = null;
        Optional<Entry> server = d.get(Component.SERVER_PROCESSES).filter(Entry::known);
        Optional<Entry> base = d.get(Component.DRIVER_BASELINE).filter(Entry::known);
        if (server.isPresent()) {
            share = server.get().bytes();
            what = "the serving processes hold ";
        } else if (d.used().known() && base.isPresent()) {
            share = d.used().bytes() - base.get().bytes();
            what = "used minus driver baseline is ";
        }
        if (share == null) {
            d.check(new Check(Check.VLLM_BUDGET_VS_DEVICE, Check.Status.SKIPPED,
                    head + "; no " + d.moment() + " sample of the server's share to compare"));
            return;
        }
        long over = share - budget;
        Check.Status s = over <= 0 ? Check.Status.PASS : over <= budget / 20 ? Check.Status.WARN : Check.Status.FAIL;
        d.check(new Check(Check.VLLM_BUDGET_VS_DEVICE, s, head + "; " + what + Units.gib(share)
                + (over <= 0 ? ", within the budget" : ", " + Units.gib(over) + " over it: memory vLLM did not account for")));
    }
}

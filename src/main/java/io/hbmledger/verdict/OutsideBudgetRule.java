package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Why a device shows more in use than utilization x total: the budget covers only what the
 * engine sized (weights, activation peak, non-torch at profiling, KV cache). The driver's
 * reserve outside torch's view (capacity - total seen), graphs captured after sizing,
 * communication buffers made later and other processes sit outside it.
 */
final class OutsideBudgetRule {

    private OutsideBudgetRule() {
    }

    static List<Finding> apply(RunFacts run) {
        // one answer per instance: the device furthest above its budget
        java.util.Map<String, Finding> most = new java.util.LinkedHashMap<>();
        java.util.Map<String, Long> mostBytes = new java.util.HashMap<>();
        for (DeviceFacts d : run.devices()) {
            if (d.used() == null || !d.used().known()) {
                continue;
            }
            for (ServerFacts s : run.servers()) {
                if (!s.devices().contains(d.device()) || s.refusal() != null) {
                    continue;
                }
                Optional<Figure> budget = KvBudgetRule.budget(s);
                if (budget.isPresent() && budget.get().bytes() > 0) {
                    long over = d.used().bytes() - budget.get().bytes();
                    // below the budget nothing the figures show sits outside it (below_budget speaks
                    // for a sample far below; "-25.58 GiB less than the budget" was the old text)
                    if (over > 0 && over > mostBytes.getOrDefault(s.instance(), Long.MIN_VALUE)) {
                        mostBytes.put(s.instance(), over);
                        most.put(s.instance(), outside(d, s, budget.get()));
                    }
                }
            }
        }
        return new ArrayList<>(most.values());
    }

    private static Finding outside(DeviceFacts d, ServerFacts s, Figure budget) {
        Figure used = d.used().named("used");
        Figure outside = Arith.minus("outside_budget", used, budget);
        List<Figure> figures = new ArrayList<>(List.of(used, budget, outside));
        StringBuilder text = new StringBuilder(d.device() + " uses " + gib(used) + ", " + gib(outside)
                + " more than the server's budget of " + gib(budget));
        if (d.capacity() != null && d.capacity().known() && s.has(Fact.TOTAL_SEEN)) {
            Figure hidden = Arith.minus("outside_torch_view", d.capacity().named("capacity"),
                    s.fact(Fact.TOTAL_SEEN).named("total_seen"));
            figures.add(hidden);
            text.append("; of the device, ").append(gib(hidden)).append(" is never offered to torch (capacity - total the"
                    + " engine sees)");
        }
        text.append(". Outside the budget sit the driver/runtime reserve, graphs captured after the KV cache was sized,"
                + " communication buffers made later and any other process.");
        return new Finding(Finding.Kind.OUTSIDE_BUDGET, Finding.Severity.INFO, List.of(d.device()), s.instance(), text.toString(), figures,
                List.of("To leave room for another service, lower gpu_memory_utilization by at least that service's"
                        + " footprint divided by the total the engine sees."));
    }
}

package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;
import static io.hbmledger.verdict.Arith.ratio;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A KV cache of zero or less when the log does not print every part of the budget: V1's INFO
 * lines give only "Model loading took W GiB" and "Available KV cache memory: -K GiB"
 * (v1/worker/gpu_worker.py; the breakdown is DEBUG), vllm-ascend only "Loading model weights took
 * W GB" and "Available memory: 0, total memory: T" (worker_v1.py determine_available_memory, which
 * prints max(T x utilization - peak, 0) and counts every process's memory on the NPU in the peak).
 * What is known is still an answer: the budget, the weights, and the rest of the non-KV memory
 * (activation peak and non-torch) as budget - weights - KV, and the utilization at which the KV
 * cache would just reach zero.
 */
final class KvPartialBudget {

    /** The text after "vLLM cannot serve: ", its figures, and the advice on the utilization. */
    record Answer(String text, List<Figure> figures, Optional<String> utilizationAdvice) {
    }

    private KvPartialBudget() {
    }

    static Answer of(ServerFacts s) {
        Figure kv = s.fact(Fact.KV_CACHE);
        // a printed 0 is vllm-ascend's clamp (or a V0 budget that ran out exactly): at most 0
        boolean clamped = kv.bytes() == 0;
        boolean ascend = kv.name().equals(io.hbmledger.evidence.Quantity.AVAILABLE_MEMORY.contractName());
        List<Figure> figures = new ArrayList<>();
        Optional<Figure> budget = KvBudgetRule.budget(s);
        Optional<Figure> weights = s.get(Fact.WEIGHTS).map(w -> w.named("weights"));
        s.get(Fact.UTILIZATION).ifPresent(u -> figures.add(u.named("utilization")));
        s.get(Fact.TOTAL_SEEN).ifPresent(t -> figures.add(t.named("total_seen")));
        budget.ifPresent(figures::add);
        weights.ifPresent(figures::add);
        StringBuilder text = new StringBuilder(ascend ? "vllm-ascend's KV cache budget (\"Available memory\") is "
                : "the KV cache it sized is ").append(gib(kv));
        if (clamped) {
            text.append(ascend ? " (it prints max(budget - profile peak, 0))" : "").append(": nothing is left for it");
        }
        String share = s.has(Fact.UTILIZATION, Fact.TOTAL_SEEN) ? ratio(s.fact(Fact.UTILIZATION).value()) + " x "
                + gib(s.fact(Fact.TOTAL_SEEN)) + " = " : "";
        if (clamped && budget.isPresent() && weights.isPresent() && weights.get().bytes() > budget.get().bytes()) {
            // the clamped 0 says only that the peak reached the budget: with the weights above it,
            // "activation peak and non-torch memory at least -0.97 GiB" said nothing (fresh-user finding)
            Figure over = Arith.minus("weights_over_budget", weights.get(), budget.get());
            figures.add(over);
            text.append(". Of its budget ").append(share).append(gib(budget.get())).append(", the weights alone take ")
                    .append(gib(weights.get())).append(", ").append(gib(over)).append(" more than the whole budget (")
                    .append(Arith.gib(weights.get())).append(" - ").append(gib(budget.get()))
                    .append("), before any activation peak or non-torch memory");
        } else if (budget.isPresent() && weights.isPresent()) {
            Figure rest = Arith.minus("activation_peak_and_non_torch", Arith.minus("budget_less_weights", budget.get(),
                    weights.get()), kv);
            figures.add(rest);
            text.append(". Of its budget ").append(share).append(gib(budget.get())).append(", the weights take ")
                    .append(gib(weights.get())).append(" and the profile run's activation peak and non-torch memory")
                    .append(ascend ? " (every process's memory on the device counts as non-torch there)" : "")
                    .append(clamped ? " at least " : " ").append(gib(rest)).append(" (").append(Arith.gib(budget.get()))
                    .append(" - ").append(gib(weights.get())).append(clamped ? "" : " - (" + gib(kv) + ")").append(")");
            // v0.6.3-v0.6.4 print non_torch_memory (device-wide, other processes included) but no activation peak
            s.get(Fact.NON_TORCH).ifPresent(n -> {
                figures.add(n.named("non_torch"));
                text.append(", non-torch ").append(gib(n)).append(" of it");
            });
        } else if (weights.isPresent() && kv.bytes() < 0) {
            text.append(": the weights (").append(gib(weights.get())).append(") plus the profile run's activation peak")
                    .append(" and non-torch memory, which the log does not print, need ").append(gib(kv).replace("-", ""))
                    .append(" more than its budget");
            s.get(Fact.UTILIZATION).ifPresent(u -> text.append(" (").append(ratio(u.value())).append(" x the total)"));
        } else if (budget.isPresent()) {
            text.append(" of its budget ").append(share).append(gib(budget.get()));
        } else if (clamped && ascend && s.has(Fact.TOTAL_SEEN)) {
            // no utilization in the evidence: the total it is a share of is still printed
            text.append(", the budget being gpu_memory_utilization x the total ").append(gib(s.fact(Fact.TOTAL_SEEN)))
                    .append(" (how far the peak went past it is not printed)");
        }
        figures.add(kv.named("kv_cache"));
        return new Answer(text.toString(), figures, zeroKvUtilization(s, budget, kv, clamped, figures));
    }

    /**
     * (budget - KV) / total: below this utilization the KV cache has nothing; one request needs
     * its own KV on top. With a clamped 0 only the current setting is known to be too small.
     */
    private static Optional<String> zeroKvUtilization(ServerFacts s, Optional<Figure> budget, Figure kv, boolean clamped,
            List<Figure> figures) {
        if (budget.isEmpty() || !s.has(Fact.TOTAL_SEEN)) {
            return Optional.empty();
        }
        if (clamped) {
            return Optional.of("Raise gpu_memory_utilization above " + s.get(Fact.UTILIZATION).map(u -> ratio(u.value()))
                    .orElse("its current share") + " (how far is unknown: the engine prints 0 for any shortfall), if that"
                    + " much is free at start");
        }
        Figure nonKv = Arith.minus("needed_before_kv", budget.get(), kv);
        Figure zero = Arith.ratioUp("utilization_for_zero_kv", nonKv, s.fact(Fact.TOTAL_SEEN));
        figures.add(nonKv);
        figures.add(zero);
        return Optional.of("Raise gpu_memory_utilization above " + ratio(zero.value()) + " ((" + Arith.gib(nonKv)
                .replace(" GiB", "") + " GiB needed before any KV) / " + gib(s.fact(Fact.TOTAL_SEEN))
                + "), plus room for one request's KV cache, if that much is free at start");
    }
}

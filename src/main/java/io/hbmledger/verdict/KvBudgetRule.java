package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;
import static io.hbmledger.verdict.Arith.ratio;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The KV cache that is left of the budget: budget = utilization x total (as the engine saw
 * it), minus weights, non-torch memory and the profiled activation peak (V0
 * {@code determine_num_available_blocks}, V1 {@code determine_available_memory}). When nothing
 * is left (V0 prints a negative KV and 0 blocks) or less than one request needs (V1 refuses
 * with "KV cache is needed, which is larger than the available KV cache memory"), the engine
 * cannot serve.
 */
final class KvBudgetRule {

    private KvBudgetRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (ServerFacts s : run.servers()) {
            if (s.has(Fact.KV_NEEDED, Fact.KV_CACHE)
                    && s.fact(Fact.KV_NEEDED).bytes() > s.fact(Fact.KV_CACHE).bytes()
                    || s.has(Fact.KV_NEEDED) && !s.has(Fact.KV_CACHE) && s.kvRefusal() != null) {
                // V1's refusal names what one request needs; a paste may lose the available figure
                // (a line wrapped or cut before it), which leaves a KV cache too small, not none
                out.add(tooSmall(s));
            } else if (negative(s)) {
                out.add(noKv(s, run));
            } else if (s.has(Fact.MAX_MODEL_LEN, Fact.KV_TOKENS)
                    && s.fact(Fact.MAX_MODEL_LEN).value() > s.fact(Fact.KV_TOKENS).value()) {
                out.add(tooFewTokens(s));
            } else if (s.kvRefusal() != null) {
                out.add(refusedWithoutFigures(s, run));
            }
        }
        return out;
    }

    private static boolean negative(ServerFacts s) {
        boolean kvGone = s.get(Fact.KV_CACHE).map(k -> k.bytes() <= 0).orElse(false);
        boolean noBlocks = s.get(Fact.GPU_BLOCKS).map(b -> b.value() == 0).orElse(false);
        return kvGone || noBlocks && s.has(Fact.KV_CACHE);
    }

    /** weights + non-torch + activation peak, when all three are known. */
    static Optional<Figure> beforeKv(ServerFacts s) {
        if (!s.has(Fact.WEIGHTS, Fact.NON_TORCH, Fact.ACTIVATION_PEAK)) {
            return Optional.empty();
        }
        return Optional.of(Arith.sum("needed_before_kv", s.fact(Fact.WEIGHTS).named("weights"),
                s.fact(Fact.NON_TORCH).named("non_torch"), s.fact(Fact.ACTIVATION_PEAK).named("activation_peak")));
    }

    static Optional<Figure> budget(ServerFacts s) {
        if (s.has(Fact.REQUESTED)) {
            return Optional.of(s.fact(Fact.REQUESTED).named("budget"));
        }
        if (s.has(Fact.UTILIZATION, Fact.TOTAL_SEEN)) {
            return Optional.of(Arith.times("budget", s.fact(Fact.UTILIZATION), s.fact(Fact.TOTAL_SEEN)));
        }
        return Optional.empty();
    }

    private static Finding noKv(ServerFacts s, RunFacts run) {
        Figure kv = s.fact(Fact.KV_CACHE).named("kv_cache");
        List<Figure> figures = new ArrayList<>();
        StringBuilder text = new StringBuilder("vLLM cannot serve: ");
        Optional<Figure> budget = budget(s);
        Optional<Figure> before = beforeKv(s);
        Optional<String> raise = Optional.empty();
        if (budget.isEmpty() || before.isEmpty()) {
            KvPartialBudget.Answer partial = KvPartialBudget.of(s);
            text.append(partial.text());
            figures.addAll(partial.figures());
            raise = partial.utilizationAdvice();
        } else {
            Figure b = budget.get();
            Figure n = before.get();
            String share = s.has(Fact.UTILIZATION, Fact.TOTAL_SEEN) ? ratio(s.fact(Fact.UTILIZATION).value())
                    + " x " + gib(s.fact(Fact.TOTAL_SEEN)) + " = " : "";
            text.append("its budget ").append(share).append(gib(b)).append(" cannot hold weights ")
                    .append(gib(s.fact(Fact.WEIGHTS))).append(" + non-torch ").append(gib(s.fact(Fact.NON_TORCH)))
                    .append(" + activation peak ").append(gib(s.fact(Fact.ACTIVATION_PEAK))).append(" = ")
                    .append(gib(n)).append(", so the KV cache is ").append(Arith.gib(b)).append(" - ")
                    .append(gib(n)).append(" = ").append(gib(kv));
            s.get(Fact.UTILIZATION).ifPresent(u -> figures.add(u.named("utilization")));
            s.get(Fact.TOTAL_SEEN).ifPresent(t -> figures.add(t.named("total_seen")));
            figures.add(b);
            figures.add(s.fact(Fact.WEIGHTS).named("weights"));
            figures.add(s.fact(Fact.NON_TORCH).named("non_torch"));
            figures.add(s.fact(Fact.ACTIVATION_PEAK).named("activation_peak"));
            figures.add(n);
            figures.add(kv);
        }
        s.get(Fact.GPU_BLOCKS).ifPresent(g -> figures.add(g.named("gpu_blocks")));
        s.get(Fact.MAX_CONCURRENCY).ifPresent(c -> figures.add(c.named("max_concurrency")));
        text.append(s.get(Fact.GPU_BLOCKS).map(g -> ": " + Math.round(g.value()) + " KV blocks").orElse(""))
                .append(s.get(Fact.MAX_CONCURRENCY).map(c -> ", maximum concurrency "
                        + String.format(java.util.Locale.ROOT, "%.2fx", c.value())).orElse("")).append('.');
        List<String> advice = new ArrayList<>(List.of(
                raise.map(r -> r + ", or lower the non-KV memory").orElse(WhatFitsRule.noneFits(s)
                        ? "No gpu_memory_utilization fits one request on this device (see what_fits): lower the non-KV memory"
                        : "Raise gpu_memory_utilization" + (WhatFitsRule.answers(s) ? " (see what_fits)" : "")
                        + ", or lower the non-KV memory") + ": a smaller activation peak"
                        + " (smaller max_num_batched_tokens / max_model_len), fewer or smaller weights per device"
                        + " (a quantized model, more tensor parallelism)."));
        // other instances on the device: vllm-ascend counts them in this one's peak (DeviceWideBudget)
        DeviceWideBudget.of(s, run).ifPresent(p -> {
            text.append(p.text());
            figures.addAll(p.figures());
            advice.add(p.othersSeen() ? 0 : 1, p.advice());
        });
        return new Finding(Finding.Kind.KV_NEGATIVE, Finding.Severity.ERROR, s.devices(), s.instance(),
                text.toString(), figures, advice);
    }

    private static Finding tooSmall(ServerFacts s) {
        Figure need = s.fact(Fact.KV_NEEDED).named("kv_needed_for_one_request");
        Figure have = s.get(Fact.KV_CACHE).map(k -> k.named("kv_cache")).orElse(null);
        Figure gap = have == null ? null : Arith.minus("kv_shortfall", need, have);
        List<Figure> figures = new ArrayList<>(have == null ? List.of(need) : List.of(need, have, gap));
        s.get(Fact.MAX_MODEL_LEN).ifPresent(m -> figures.add(0, m.named("max_model_len")));
        String len = s.get(Fact.MAX_MODEL_LEN).map(m -> " of " + Math.round(m.value()) + " tokens").orElse("");
        String text = "vLLM cannot serve: one request" + len + " needs " + gib(need) + " of KV cache, but "
                + (have == null ? "less is left in the budget (the available KV cache figure is not in the evidence: "
                        + s.kvRefusal().file() + ":" + s.kvRefusal().line() + ")."
                        : "only " + gib(have) + " is left in the budget, " + gib(gap) + " short.");
        List<String> advice = new ArrayList<>();
        s.get(Fact.ESTIMATED_MAX_MODEL_LEN).ifPresent(e -> {
            figures.add(e.named("estimated_max_model_len"));
            advice.add("Set --max-model-len " + Math.round(e.value()) + " or less: vLLM's own estimate of the longest"
                    + " request the KV cache it has can hold.");
        });
        String raise;
        if (have == null) {
            raise = "Or raise gpu_memory_utilization";
        } else if (s.has(Fact.UTILIZATION, Fact.TOTAL_SEEN)) {
            Figure step = Arith.ratioUp("utilization_step", gap, s.fact(Fact.TOTAL_SEEN));
            double to = Math.round((s.fact(Fact.UTILIZATION).value() + step.value()) * 100) / 100.0;
            figures.add(step);
            raise = "Or raise gpu_memory_utilization to at least " + ratio(to) + " (" + ratio(s.fact(Fact.UTILIZATION).value())
                    + " + " + gib(gap) + " / " + gib(s.fact(Fact.TOTAL_SEEN)) + ", rounded up) if that much is free at start";
        } else {
            raise = "Or raise gpu_memory_utilization by at least " + gib(gap) + " / the device's total";
        }
        advice.add(raise + ", or spread the weights over more devices.");
        return new Finding(Finding.Kind.KV_SMALL, Finding.Severity.ERROR, s.devices(), s.instance(), text, figures, advice);
    }

    /**
     * V0's refusal (engine/llm_engine.py, worker.py raise_if_cache_size_invalid): "The model's max
     * seq len (N) is larger than the maximum number of tokens that can be stored in KV cache (M)",
     * in tokens; bytes only when the KV cache's size was printed too.
     */
    private static Finding tooFewTokens(ServerFacts s) {
        Figure len = s.fact(Fact.MAX_MODEL_LEN).named("max_model_len");
        Figure tokens = s.fact(Fact.KV_TOKENS).named("kv_cache_tokens");
        List<Figure> figures = new ArrayList<>(List.of(len, tokens));
        long n = Math.round(len.value());
        long m = Math.round(tokens.value());
        StringBuilder text = new StringBuilder(String.format(java.util.Locale.ROOT,
                "vLLM cannot serve: max_model_len is %,d tokens, but the KV cache holds only %,d tokens (%.0f%% of one"
                        + " request)", n, m, 100.0 * m / n));
        if (s.has(Fact.KV_CACHE) && m > 0) {
            Figure kv = s.fact(Fact.KV_CACHE).named("kv_cache");
            long perToken = kv.bytes() / m;
            Figure need = Figure.bytes("kv_needed_for_one_request", perToken * n, Figure.derived(kv, len, tokens),
                    io.hbmledger.ledger.Units.gibNumber(kv.bytes()) + " GiB / " + m + " tokens x " + n + " tokens",
                    Figure.sourcesOf(kv, len, tokens));
            figures.add(kv);
            figures.add(need);
            text.append(": one request needs about ").append(gib(need)).append(" of KV cache, ")
                    .append(gib(kv)).append(" is left in the budget");
        }
        text.append('.');
        long tp = s.get(Fact.TENSOR_PARALLEL).map(t -> Math.round(t.value())).orElse(1L);
        if (tp > 1) {
            // vllm #13061: two 24 GB cards, the user added their memory and counted the weights once
            text.append(" The ").append(String.format(java.util.Locale.ROOT, "%,d", m)).append(" tokens already use the KV cache of all ")
                    .append(tp).append(" tensor-parallel devices (each holds its share of the KV heads);")
                    .append(" memory does not pool across devices, and the weights vLLM reports are per device.");
            figures.add(s.fact(Fact.TENSOR_PARALLEL).named("tensor_parallel_size"));
        }
        String raise = String.format(java.util.Locale.ROOT, "%,d tokens (%.2fx its size now)", n, (double) n / m);
        boolean atCeiling = s.get(Fact.UTILIZATION).map(u -> u.value() >= HIGH_UTILIZATION).orElse(false);
        String advice = "Set --max-model-len " + m + " or less (requests longer than what the KV cache holds cannot be served)"
                + (atCeiling
                        ? "; gpu_memory_utilization is already " + Arith.ratio(s.fact(Fact.UTILIZATION).value())
                                + ", so a KV cache of " + raise + " needs fewer weights per device (more tensor parallelism,"
                                + " a quantized checkpoint) instead."
                        : ", or raise gpu_memory_utilization until the KV cache holds " + raise + ", or spread the weights over"
                                + " more devices (tensor parallelism) to leave each more room for KV.");
        return new Finding(Finding.Kind.KV_SMALL, Finding.Severity.ERROR, s.devices(), s.instance(), text.toString(),
                figures, List.of(advice));
    }

    /**
     * The engine refused for lack of KV cache memory but printed too little for the arithmetic
     * (an excerpt with only the error, or V1's "No available memory for the cache blocks"
     * without the profiling figures): the refusal is still the answer, with what is known.
     */
    private static Finding refusedWithoutFigures(ServerFacts s, RunFacts run) {
        List<Figure> figures = new ArrayList<>();
        StringBuilder text = new StringBuilder("vLLM cannot serve: after profiling, nothing of its budget was left for the"
                + " KV cache (" + s.kvRefusal().file() + ":" + s.kvRefusal().line() + ")");
        List<String> known = new ArrayList<>();
        s.get(Fact.UTILIZATION).ifPresent(u -> {
            figures.add(u.named("utilization"));
            known.add("gpu_memory_utilization " + ratio(u.value()));
        });
        budget(s).ifPresent(b -> {
            figures.add(b);
            known.add("budget " + gib(b));
        });
        for (Fact f : List.of(Fact.WEIGHTS, Fact.NON_TORCH, Fact.ACTIVATION_PEAK)) {
            s.get(f).ifPresent(v -> {
                String name = f.name().toLowerCase(java.util.Locale.ROOT);
                figures.add(v.named(name));
                known.add(name.replace('_', ' ') + " " + gib(v));
            });
        }
        s.get(Fact.GPU_BLOCKS).ifPresent(g -> {
            figures.add(g.named("gpu_blocks"));
            known.add(Math.round(g.value()) + " KV blocks");
        });
        if (!known.isEmpty()) {
            text.append(": ").append(String.join(", ", known));
        }
        text.append(". The log does not print every part of the budget, so the shortfall is unknown.");
        String weights = s.get(Fact.WEIGHTS).map(w -> " The weights alone take " + gib(w)
                + ", so the share must be well above " + gib(w) + " / the device's total.").orElse("");
        List<String> advice = new ArrayList<>(List.of((WhatFitsRule.noneFits(s)
                ? "No gpu_memory_utilization fits one request on this device (see what_fits): lower the non-KV memory"
                : "Raise gpu_memory_utilization" + (WhatFitsRule.answers(s) ? " (see what_fits)" : "")
                + ", or lower the non-KV memory") + ": a smaller"
                + " activation peak (max_num_batched_tokens), fewer weights per device (quantization, more tensor"
                + " parallelism)." + weights));
        DeviceWideBudget.of(s, run).ifPresent(p -> {
            text.append(p.text());
            figures.addAll(p.figures());
            advice.add(p.othersSeen() ? 0 : 1, p.advice());
        });
        return new Finding(Finding.Kind.KV_NEGATIVE, Finding.Severity.ERROR, s.devices(), s.instance(), text.toString(),
                figures, advice);
    }

    /** Above this share there is nothing left to raise: the rest covers graphs, buffers and the runtime. */
    private static final double HIGH_UTILIZATION = 0.95;
}

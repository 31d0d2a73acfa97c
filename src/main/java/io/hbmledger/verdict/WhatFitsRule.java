package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;
import static io.hbmledger.verdict.Arith.ratio;

import io.hbmledger.ledger.Confidence;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What settings serve one request at max_model_len: the KV one request needs (KV bytes per
 * token x max_model_len), the smallest utilization whose budget holds the non-KV memory plus
 * that, and the largest max_model_len the current budget serves.
 */
final class WhatFitsRule {

    /** vLLM V0's defaults: 4 GiB of CPU swap space, 16 tokens per block. */
    private static final long V0_SWAP_BYTES = 4L << 30;
    private static final int BLOCK_TOKENS = 16;
    /** KV bytes per token are 2 x layers x kv_heads x head_dim x dtype bytes: a multiple of 128. */
    private static final int KV_GRAIN = 128;

    private WhatFitsRule() {
    }

    static List<Finding> apply(RunFacts run) {
        // one answer per instance: its rank with the most memory before the KV cache, the one that
        // decides whether a request fits
        java.util.Map<String, Finding> worst = new java.util.LinkedHashMap<>();
        java.util.Map<String, Long> worstNonKv = new java.util.HashMap<>();
        for (ServerFacts s : run.servers()) {
            Optional<OneRequest> one = oneRequest(s);
            if (one.isPresent() && one.get().nonKv().bytes() > worstNonKv.getOrDefault(s.instance(), Long.MIN_VALUE)) {
                worstNonKv.put(s.instance(), one.get().nonKv().bytes());
                worst.put(s.instance(), fits(s, one.get()));
            }
        }
        return new ArrayList<>(worst.values());
    }

    /** Whether this rule answers for the server: the facts it needs are all there. */
    static boolean answers(ServerFacts s) {
        return oneRequest(s).isPresent();
    }

    /**
     * Whether no utilization serves one request: the non-KV memory plus one request's KV cache
     * exceed the total the engine sees. Then "raise gpu_memory_utilization" is no advice.
     */
    static boolean noneFits(ServerFacts s) {
        return oneRequest(s).map(OneRequest::fitsNowhere).orElse(false);
    }

    /** What one request at max_model_len needs, when the facts give all its parts. */
    private static Optional<OneRequest> oneRequest(ServerFacts s) {
        Optional<Figure> perToken = perToken(s);
        Optional<Figure> nonKv = nonKv(s);
        if (perToken.isEmpty() || nonKv.isEmpty() || !s.has(Fact.MAX_MODEL_LEN, Fact.TOTAL_SEEN)) {
            return Optional.empty();
        }
        return Optional.of(OneRequest.of(perToken.get(), s.fact(Fact.MAX_MODEL_LEN), nonKv.get(), s.fact(Fact.TOTAL_SEEN)));
    }

    /** The memory the budget holds besides the KV cache. */
    private static Optional<Figure> nonKv(ServerFacts s) {
        Optional<Figure> parts = KvBudgetRule.beforeKv(s);
        if (parts.isPresent()) {
            return parts;
        }
        Optional<Figure> budget = KvBudgetRule.budget(s);
        // a KV cache of 0 is vllm-ascend's clamp (max(budget - peak, 0)): budget - 0 is only a lower
        // bound of the non-KV memory, and "0.48 serves one request" was advised below 14.24 GiB of
        // weights in a 13.27 GiB budget (fresh-user finding)
        if (budget.isPresent() && s.has(Fact.KV_CACHE) && s.fact(Fact.KV_CACHE).bytes() != 0) {
            return Optional.of(Arith.minus("needed_before_kv", budget.get(), s.fact(Fact.KV_CACHE)));
        }
        return Optional.empty();
    }

    /** Whether {@link #perToken} is the engine's KV bytes over its KV tokens. */
    private static boolean fromEngineTokens(ServerFacts s) {
        return !s.has(Fact.KV_BYTES_PER_TOKEN) && s.has(Fact.KV_TOKENS, Fact.KV_CACHE) && s.fact(Fact.KV_TOKENS).value() > 0
                && s.fact(Fact.KV_CACHE).bytes() > 0;
    }

    static Optional<Figure> perToken(ServerFacts s) {
        if (s.has(Fact.KV_BYTES_PER_TOKEN)) {
            return s.get(Fact.KV_BYTES_PER_TOKEN);
        }
        if (fromEngineTokens(s)) {
            Figure kv = s.fact(Fact.KV_CACHE);
            double tokens = s.fact(Fact.KV_TOKENS).value();
            return Optional.of(Figure.bytes("kv_bytes_per_token", Math.round(kv.bytes() / tokens), Confidence.INFERRED,
                    gib(kv) + " / " + Math.round(tokens) + " tokens", Figure.sourcesOf(kv, s.fact(Fact.KV_TOKENS))));
        }
        if (s.engine() == ServerFacts.Engine.V0 && s.has(Fact.CPU_BLOCKS) && s.fact(Fact.CPU_BLOCKS).value() > 0) {
            return fromCpuBlocks(s.fact(Fact.CPU_BLOCKS));
        }
        return Optional.empty();
    }

    /**
     * V0 makes floor(swap_space / block_bytes) CPU blocks: with the default 4 GiB and 16 tokens
     * per block, a block is in (4 GiB / (n + 1), 4 GiB / n] bytes, and a token's KV is the
     * multiple of 128 in that interval when there is one.
     */
    private static Optional<Figure> fromCpuBlocks(Figure cpuBlocks) {
        long n = Math.round(cpuBlocks.value());
        double hi = V0_SWAP_BYTES / (double) n / BLOCK_TOKENS;
        double lo = V0_SWAP_BYTES / (double) (n + 1) / BLOCK_TOKENS;
        long candidate = (long) Math.floor(hi / KV_GRAIN) * KV_GRAIN;
        if (candidate <= lo) {
            return Optional.empty();
        }
        return Optional.of(Figure.bytes("kv_bytes_per_token", candidate, Confidence.INFERRED,
                "4 GiB swap space / " + n + " CPU blocks / 16 tokens per block = "
                        + String.format(Locale.ROOT, "%.0f-%.0f", lo, hi)
                        + " B, the multiple of 128 in that range (vLLM V0 defaults swap_space 4 GiB and block_size 16"
                        + " assumed)", cpuBlocks.sources()));
    }

    private static Finding fits(ServerFacts s, OneRequest one) {
        long len = one.tokens();
        Figure perToken = one.perToken();
        Figure nonKv = one.nonKv();
        Figure total = one.total();
        Figure oneRequest = one.kv();
        Figure need = one.need();
        Figure minUtil = Arith.ratioUp("smallest_utilization", need, total);
        List<Figure> figures = new ArrayList<>(one.figures(s.fact(Fact.MAX_MODEL_LEN)));
        figures.add(minUtil);
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "One %d-token request needs %s of KV cache (%,d B/token x %d); with %s needed before any KV, the"
                        + " smallest utilization that serves it is (%s + %s) / %s = %s",
                len, gib(oneRequest), perToken.bytes(), len, gib(nonKv), Arith.gib(nonKv).replace(" GiB", ""),
                gib(oneRequest).replace(" GiB", ""), gib(total), ratio(minUtil.value())));
        Optional<Figure> budget = KvBudgetRule.budget(s);
        if (budget.isPresent() && budget.get().bytes() > nonKv.bytes()) {
            long avail = budget.get().bytes() - nonKv.bytes();
            // a rate read from the engine's own tokens and bytes: scale by them, not by the rounded
            // rate, so that the budget it came from gives back the engine's count (vllm-ascend #2667:
            // 252,800 tokens, not 252,784)
            long tokens = (fromEngineTokens(s) ? Math.multiplyExact(avail, Math.round(s.fact(Fact.KV_TOKENS).value()))
                    / s.fact(Fact.KV_CACHE).bytes() : avail / perToken.bytes()) / BLOCK_TOKENS * BLOCK_TOKENS;
            Figure largest = Figure.value("largest_max_model_len", tokens, Confidence.INFERRED,
                    "(" + gib(budget.get()) + " - " + gib(nonKv) + ") / " + perToken.bytes()
                            + " B/token, whole blocks of 16", Figure.sourcesOf(budget.get(), nonKv, perToken));
            figures.add(largest);
            text.append("; at the current budget of ").append(gib(budget.get())).append(" the largest max_model_len is ")
                    .append(tokens).append(" tokens");
        }
        text.append('.');
        String advice;
        if (one.fitsNowhere()) {
            // "at least 1.29" was the advice here, under "no utilization fits" (fresh-user finding)
            boolean nonKvAlone = one.nonKvAlone();
            text.append(" No utilization fits on this device: ").append(nonKvAlone
                    ? "the memory needed before any KV cache alone exceeds the total " + gib(total) + "."
                    : "that plus one request's KV cache exceeds the total " + gib(total) + ".");
            advice = "No gpu_memory_utilization serves one request on this device: "
                    + (nonKvAlone ? "" : "lower max_model_len so that one request's KV cache fits, ")
                    + "give each device fewer weights (a quantized model, more tensor parallelism)"
                    + " or lower the activation peak (max_num_batched_tokens).";
        } else {
            text.append(" That needs ").append(gib(need)).append(" free on the device when vLLM starts.");
            advice = "Set gpu_memory_utilization to at least " + ratio(minUtil.value())
                    + " if that much is free at start, or lower the activation peak (max_num_batched_tokens,"
                    + " max_model_len) so that less is needed before the KV cache.";
        }
        return new Finding(Finding.Kind.WHAT_FITS, Finding.Severity.INFO, s.devices(), s.instance(), text.toString(),
                figures, List.of(advice));
    }
}

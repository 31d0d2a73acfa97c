package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Units;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;

/**
 * When vllm-ascend prints only its KV budget ("Available memory: A, total memory: T") and the
 * weights, the rest of its start-up profile peak follows from its own formula (worker_v1.py
 * {@code determine_available_memory}: {@code A = int(T * u - peak)}, peak = torch's allocated
 * peak plus non-torch allocations): {@code peak = floor(T * u - A)}, and peak minus weights is
 * the activation peak and non-torch memory together (inferred). Part of it (the activations) is
 * freed before ready, so the lump is shown but not counted. Owner of that lump
 * ({@code activation_peak_and_non_torch}); it reads vLLM's figures from the log, not from lines.
 */
public final class ProfilePeakRule implements DeviceRule {

    public static final String NAME = "vllm_figures_consistent";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        // vLLM's own figures, read from the log: this rule runs before their owners decide the lines
        if (d.ranks().isEmpty() || VllmFiguresRule.figure(ev, d, Component.ACTIVATION_PEAK).isPresent()
                || VllmFiguresRule.figure(ev, d, Component.NON_TORCH).isPresent()) {
            return;
        }
        int rank = d.ranks().get(0);
        Optional<RankPick.Picked> avail = RankPick.pick(ev.vllm(Quantity.AVAILABLE_MEMORY), rank, ev.layout());
        Optional<RankPick.Picked> total = RankPick.pick(ev.vllm(Quantity.TOTAL_MEMORY), rank, ev.layout());
        Optional<RankPick.Picked> util = RankPick.pick(AskedUtilizationRule.used(ev), rank, ev.layout());
        Optional<Entry> weights = VllmFiguresRule.figure(ev, d, Component.WEIGHTS);
        if (avail.isEmpty() || total.isEmpty() || util.isEmpty() || weights.isEmpty()) {
            return;
        }
        long a = avail.get().t().o().bytes();
        long t = total.get().t().o().bytes();
        BigDecimal u = BigDecimal.valueOf(util.get().t().o().value());
        long budget = u.multiply(BigDecimal.valueOf(t)).setScale(0, RoundingMode.FLOOR).longValueExact();
        long peak = u.multiply(BigDecimal.valueOf(t)).subtract(BigDecimal.valueOf(a))
                .setScale(0, RoundingMode.FLOOR).longValueExact();
        long w = weights.get().bytes();
        long rest = peak - w;
        String arithmetic = "profile peak = floor(" + util.get().t().o().text() + " x " + t + " - " + a + ") = "
                + peak + " B; minus weights " + w + " B = " + rest + " B (" + Units.gib(rest) + ")";
        if (a == 0) {
            // vllm-ascend prints max(T x u - peak, 0): a 0 says only that the peak reached the budget.
            // With the weights above the budget that is no contradiction (a warning called such a
            // log's figures impossible; fresh-user finding), and any rest is a lower bound.
            String clamp = "vllm-ascend printed Available memory 0, its max(budget - peak, 0), so the peak is at least"
                    + " the budget " + budget + " B (" + Units.gib(budget) + ")";
            if (rest < 0) {
                d.decide(Entry.unknown(Component.PROFILE_PEAK_REST, "not worked out: " + clamp + ", and the weights "
                        + w + " B alone exceed it by " + (-rest) + " B (" + Units.gib(-rest) + "): the rest of the peak"
                        + " is not printed"));
                return;
            }
            d.decide(new Entry(Component.PROFILE_PEAK_REST, rest, Confidence.INFERRED,
                    List.of(util.get().t().source(), avail.get().t().source(), total.get().t().source(),
                            weights.get().sources().get(0)),
                    "at least this much: " + clamp + "; minus the weights, activation peak and non-torch memory"
                            + " together; the activations are freed before ready, so not in the sum",
                    "startup", false, "profile peak >= floor(" + util.get().t().o().text() + " x " + t + ") = " + peak
                            + " B; minus weights " + w + " B: at least " + rest + " B (" + Units.gib(rest) + ")"));
            return;
        }
        if (rest < 0) {
            // The peak includes the weights, so this cannot be negative for figures of one start:
            // the lines come from different runs, or vLLM printed rounded or unrelated figures.
            d.decide(Entry.unknown(Component.PROFILE_PEAK_REST, "not worked out: " + arithmetic
                    + " is negative, so these figures do not belong together (different runs or devices?)"));
            d.check(new Check(NAME, Check.Status.WARN, "vLLM's figures do not fit its own formula: " + arithmetic
                    + "; a negative amount cannot be; check that the log holds one server start and the right rank"));
            return;
        }
        d.decide(new Entry(Component.PROFILE_PEAK_REST, rest, Confidence.INFERRED,
                List.of(util.get().t().source(), avail.get().t().source(), total.get().t().source(),
                        weights.get().sources().get(0)),
                "vLLM's start-up profile peak (" + Units.gib(peak) + " of a " + Units.gib(budget)
                        + " budget) minus the weights: activation peak and non-torch memory together;"
                        + " the activations are freed before ready, so not in the sum",
                "startup", false, arithmetic));
    }
}

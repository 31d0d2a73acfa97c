package io.hbmledger.verdict;

import static io.hbmledger.ledger.Units.gibNumber;
import static io.hbmledger.verdict.Arith.gib;
import static io.hbmledger.verdict.Arith.ratio;

import io.hbmledger.ledger.Confidence;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Several server instances on one device, each with its own budget: do the shares fit side by
 * side? Each utilization is a share of the whole total, so the shares must sum to less than 1,
 * however the instances were started. When the last instance was refused, the instance that
 * started just before it also bounds what was in use then.
 */
final class CoTenantsRule {

    /** Shares that leave room for the runtime and each instance's memory outside its budget. */
    static final double SIDE_BY_SIDE = 0.9;

    private CoTenantsRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Figure> shares = new ArrayList<>(run.peerUtilizations());
        Optional<ServerFacts> last = Optional.empty();
        for (ServerFacts s : run.servers()) {
            if (s.has(Fact.UTILIZATION) && (s.rank() == null || s.rank() == 0)) {
                shares.add(s.fact(Fact.UTILIZATION));
                last = Optional.of(s);
            }
        }
        Optional<Figure> total = run.servers().stream().filter(s -> s.has(Fact.TOTAL_SEEN))
                .map(s -> s.fact(Fact.TOTAL_SEEN)).findFirst();
        if (total.isEmpty()) {
            // no engine total: the device capacity, which the engine sees somewhat less of, so the
            // shares' bytes are an upper bound
            total = run.devices().stream().filter(d -> d.capacity() != null && d.capacity().known())
                    .map(d -> new Figure("total_seen", d.capacity().bytes(), null, Confidence.INFERRED,
                            "device capacity, as no log gives the engine's total: an upper bound",
                            d.capacity().sources())).findFirst();
        }
        if (shares.size() < 2 || total.isEmpty()) {
            return List.of();
        }
        return List.of(finding(shares, total.get(), last.orElse(null)));
    }

    private static Finding finding(List<Figure> shares, Figure total, ServerFacts last) {
        double sum = 0;
        StringBuilder terms = new StringBuilder();
        for (Figure u : shares) {
            sum += u.value();
            terms.append(terms.length() == 0 ? "" : " + ").append(ratio(u.value()));
        }
        Figure sumFigure = Figure.value("utilization_sum", round(sum), Figure.derived(shares.toArray(Figure[]::new)),
                terms.toString(), Figure.sourcesOf(shares.toArray(Figure[]::new)));
        Figure asked = Arith.times("asked_together", sumFigure, total);
        int n = shares.size();
        double each = Math.floor(SIDE_BY_SIDE / n * 100 + 1e-9) / 100;
        Figure eachFigure = Figure.value("equal_share_that_fits", each, Confidence.INFERRED,
                ratio(SIDE_BY_SIDE) + " / " + n + ", rounded down", List.of());
        Figure eachBytes = Arith.times("equal_share_bytes", eachFigure, total);
        boolean over = sum > 1.0;
        List<Figure> figures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            figures.add(shares.get(i).named("utilization_" + (i + 1)));
        }
        figures.addAll(List.of(sumFigure, total.named("total_seen"), asked, eachFigure, eachBytes));
        String text = n + " instances share the device with utilizations " + terms + " = " + ratio(round(sum))
                + " of the total: they ask " + gib(asked) + " together on a device whose "
                + (total.arithmetic() != null && total.arithmetic().startsWith("device capacity")
                        ? "capacity is " + gib(total) + " (the engine sees somewhat less)" : "engine sees " + gib(total)) + (over ? ", which cannot fit; each utilization is a share of the whole total,"
                + " not a cumulative fill level." : ".");
        List<String> advice = new ArrayList<>();
        if (sum <= SIDE_BY_SIDE + 1e-9) {
            // "e.g. 2 x 0.45" was advised to a user whose two instances ran at 0.45 each (fresh-user finding)
            advice.add("These shares already sum to at most ~" + ratio(SIDE_BY_SIDE) + ", so they fit side by side by"
                    + " vLLM's arithmetic; if an instance still found no room, the other findings say why (an engine"
                    + " that counts the other instances' memory as its own, memory outside the budgets).");
        } else {
            advice.add("Give the " + n + " instances shares that sum to at most ~" + ratio(SIDE_BY_SIDE) + ", e.g. "
                    + n + " x " + ratio(each) + " = " + ratio(round(n * each)) + " -> " + n + " x "
                    + gib(eachBytes) + " = " + gibNumber(n * eachBytes.bytes()) + " GiB.");
        }
        if (last != null && last.refusal() != null && n >= 3) {
            figures.addAll(earlierBound(shares, total, advice));
        }
        return new Finding(Finding.Kind.OVER_SUBSCRIBED, over ? Finding.Severity.ERROR : Finding.Severity.INFO,
                last == null ? List.of() : last.devices(), null, text, figures, advice);
    }

    /**
     * The instance just before the refused one passed the same start check, so at most
     * total x (1 - its share) was in use before it: compare with what the instances before it
     * nominally hold. Which of them used less than its budget the evidence does not say.
     */
    private static List<Figure> earlierBound(List<Figure> shares, Figure total, List<String> advice) {
        int passed = shares.size() - 2;
        Figure share = shares.get(passed);
        Figure rest = Figure.value("free_share", round(1.0 - share.value()), share.confidence(),
                "1 - " + ratio(share.value()), share.sources());
        Figure bound = Arith.times("in_use_before_instance_" + (passed + 1) + "_at_most", rest, total);
        double before = 0;
        for (int i = 0; i < passed; i++) {
            before += shares.get(i).value();
        }
        Figure nominalShare = Figure.value("nominal_share", round(before), Confidence.INFERRED,
                "sum of the first " + passed + " utilizations", List.of());
        Figure nominal = Arith.times("nominal_budget_of_instances_1_to_" + passed, nominalShare, total);
        if (bound.bytes() < nominal.bytes()) {
            advice.add("Instance " + (passed + 1) + " (" + ratio(share.value()) + ", " + gib(Arith.times("b", share, total))
                    + ") could pass the start check only if at most " + gib(bound) + " was in use before it,"
                    + " less than the " + gib(nominal) + (passed == 1 ? " instance 1 may" : " instances 1-" + passed + " may")
                    + " take: they were not yet at"
                    + " their budgets then, and may still grow into them; which one under-used is unknown.");
        }
        return List.of(bound, nominal);
    }

    private static double round(double v) {
        return Math.round(v * 10000) / 10000.0;
    }
}

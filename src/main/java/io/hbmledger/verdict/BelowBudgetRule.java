package io.hbmledger.verdict;

import static io.hbmledger.ledger.Units.MIB;
import static io.hbmledger.ledger.Units.gibNumber;
import static io.hbmledger.verdict.Arith.gib;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A device sample that shows far less in use than the server's budget (utilization x total).
 * Once vLLM has allocated its KV cache it holds about its whole budget on each of its devices:
 * V0 and V1 size the KV cache as budget - weights - activation peak - non-torch
 * ({@code Worker.determine_num_available_blocks}, {@code Worker.determine_available_memory};
 * vllm-ascend {@code worker.py}: {@code requested_memory - non_kv_cache_memory}) and allocate it
 * whole, and graphs, the CUDA context / NPU runtime and other processes only add to it. Only the
 * activation peak, which the allocator may give back after profiling, can be missing at rest. So
 * a serving engine shows less than its budget by at most that peak; far less means the sample does not show a serving
 * engine with that setting. What else it shows is not in the evidence: the causes are
 * possibilities, listed for the user to check, never findings.
 */
final class BelowBudgetRule {

    private BelowBudgetRule() {
    }

    /**
     * Fire below three quarters of the budget: the activation peak, the one part of the budget a
     * serving engine does not hold at rest, is the only legitimate gap, and it stays under a quarter
     * of the budget in the cases read (the largest, vllm-13882: 1.42 of 5.60 GiB, 25%, on an 8 GiB
     * card where the KV cache did not even fit). When the log gives the peak, the gap must also
     * exceed it.
     */
    static final double FIRES_BELOW = 0.75;

    /** Above this many devices of one server, one finding names the lowest, so the answer stays short. */
    private static final int ONE_BY_ONE = 2;

    /** Samples taken while vLLM is up and past its KV allocation, or whose moment nobody stated. */
    private static final Set<Moment> SERVING = Set.of(Moment.READY, Moment.LOAD, Moment.AFTER);

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (ServerFacts s : run.servers()) {
            if (!served(s) || !s.has(Fact.UTILIZATION)) {
                continue;
            }
            List<Below> below = new ArrayList<>();
            for (DeviceFacts d : run.devices()) {
                if (runsOn(s, d, run) && comparable(d)) {
                    below(s, d).ifPresent(below::add);
                }
            }
            below.sort(Comparator.comparingDouble(Below::share));
            if (below.size() > ONE_BY_ONE) {
                out.add(finding(s, below.get(0), below.stream().map(b -> b.device().device()).toList(), run));
            } else {
                below.forEach(b -> out.add(finding(s, b, List.of(b.device().device()), run)));
            }
        }
        return out;
    }

    /** An engine that was refused, found no room for its KV cache or ran out of memory never held its budget. */
    private static boolean served(ServerFacts s) {
        boolean noKv = s.get(Fact.KV_CACHE).map(k -> k.bytes() <= 0).orElse(false);
        return s.refusal() == null && s.kvRefusal() == null && s.oom() == null && !noKv;
    }

    /**
     * Its devices as the evidence ties them; a lone server whose log names no rank runs on the
     * deployment's devices (given, or assumed rank i on device i), never on a card a sample only
     * shows beside them.
     */
    private static boolean runsOn(ServerFacts s, DeviceFacts d, RunFacts run) {
        if (!s.devices().isEmpty()) {
            return s.devices().contains(d.device());
        }
        return d.deployed() && run.servers().size() == 1;
    }

    /** A device sample with both figures, not an idle baseline nor one taken before the start. */
    private static boolean comparable(DeviceFacts d) {
        return d.sample() != null && d.used() != null && d.used().known() && d.capacity() != null
                && d.capacity().known() && (d.sample().moment() == null || SERVING.contains(d.sample().moment()));
    }

    private record Below(DeviceFacts device, Figure budget, boolean standIn, Figure used, Figure gap, double share) {
    }

    private static Optional<Below> below(ServerFacts s, DeviceFacts d) {
        boolean standIn = !s.has(Fact.REQUESTED) && !s.has(Fact.TOTAL_SEEN);
        Figure budget = standIn ? upperBound(s, d) : KvBudgetRule.budget(s).orElseThrow();
        Figure used = d.used().named("used");
        double share = used.bytes() / (double) budget.bytes();
        boolean pastPeak = s.get(Fact.ACTIVATION_PEAK)
                .map(p -> used.bytes() < budget.bytes() - p.bytes()).orElse(true);
        if (budget.bytes() <= 0 || share >= FIRES_BELOW || !pastPeak) {
            return Optional.empty();
        }
        return Optional.of(new Below(d, budget, standIn, used, Arith.minus("gap", budget, used), share));
    }

    /** utilization x the device's capacity, when no log gives the total the engine saw (it sees somewhat less). */
    private static Figure upperBound(ServerFacts s, DeviceFacts d) {
        Figure b = Arith.times("budget", s.fact(Fact.UTILIZATION).named("utilization"), d.capacity().named("capacity"));
        return new Figure("budget", b.bytes(), null, Confidence.INFERRED, b.arithmetic()
                + " (the device capacity, as no log gives the total vLLM sees: an upper bound)", b.sources());
    }

    private static Finding finding(ServerFacts s, Below b, List<String> devices, RunFacts run) {
        DeviceFacts d = b.device();
        Figure u = s.fact(Fact.UTILIZATION).named("utilization");
        Figure share = Figure.value("used_share_of_budget", Math.round(b.share() * 100) / 100.0,
                Figure.derived(b.used(), b.budget()), gibNumber(b.used().bytes()) + " / " + gibNumber(b.budget().bytes())
                        + " GiB", Figure.sourcesOf(b.used(), b.budget()));
        List<Figure> figures = List.of(u, b.budget(), b.used(), b.gap(), share);
        Moment moment = d.sample().moment();
        String where = devices.size() == 1 ? d.device() + " shows " : devices.size() + " devices of the server show less than "
                + Math.round(FIRES_BELOW * 100) + "% of its budget each; the lowest, " + d.device() + ", shows ";
        String budgetText = s.has(Fact.REQUESTED) ? " (as vLLM printed it)" : " (" + Arith.ratio(u.value()) + " x "
                + (b.standIn() ? gibNumber(d.capacity().bytes()) + " GiB " + run.accelerator().device()
                        + " capacity; an upper bound, vLLM sees somewhat less)"
                        : gibNumber(s.fact(Fact.TOTAL_SEEN).bytes()) + " GiB vLLM sees)");
        String text = String.format(Locale.ROOT, "%s%s used (%,d MiB), %.0f%% of the server's per-device budget of"
                        + " %s%s: %s (%,d MiB) short. A serving vLLM holds about its whole budget once its KV cache is"
                        + " allocated (only the activation peak may be given back), so this sample does not show a serving"
                        + " engine with gpu_memory_utilization %s. %s; the possible causes, most likely first:",
                where, gib(b.used()), b.used().bytes() / MIB, b.share() * 100, gib(b.budget()), budgetText,
                gib(b.gap()), b.gap().bytes() / MIB, Arith.ratio(u.value()),
                moment == null ? "Its moment is not stated" : "It was taken at " + moment.jsonName()
                        + ", after the KV cache was allocated");
        return new Finding(Finding.Kind.BELOW_BUDGET, Finding.Severity.INFO, devices, s.instance(), text, figures,
                causes(s, u, d, moment, run));
    }

    /**
     * What the user can check, most likely first. A sample's stated moment rules out "too early"
     * and "after the stop"; an engine that printed its own budget rules out the setting, said so.
     */
    private static List<String> causes(ServerFacts s, Figure u, DeviceFacts d, Moment moment, RunFacts run) {
        List<String> out = new ArrayList<>();
        if (moment == null) {
            out.add("The sample was taken before vLLM allocated its KV cache (while it loaded the weights or profiled):"
                    + " sample again after the log says the server is ready (\"Application startup complete\").");
        }
        if (s.has(Fact.REQUESTED)) {
            out.add("Not the setting: the engine printed its own budget ("
                    + s.fact(Fact.REQUESTED).sources().get(0).shortForm() + "), so gpu_memory_utilization reached it.");
        } else {
            out.add("The setting did not reach the engine on " + d.device() + ": " + Arith.ratio(u.value())
                    + " is read from " + u.sources().get(0).shortForm() + ", and a setting of another instance, or of"
                    + " an earlier start in the same log, does not apply. Check gpu_memory_utilization in the running"
                    + " start's \"non-default args\" line.");
        }
        out.add(d.device() + " is not a card vLLM runs on: compare the sample's device ids with the server's "
                + (run.accelerator() == RunFacts.Accelerator.NPU ? "ASCEND_RT_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES")
                + " (without it, --devices or run.json, rank i is assumed to run on device i).");
        if (moment == null) {
            out.add("The sample was taken after the server stopped, and shows what other processes hold.");
        }
        out.add("The KV cache was sized another way: --kv-cache-memory (vLLM v0.11+) ignores gpu_memory_utilization,"
                + " and --num-gpu-blocks-override caps the blocks.");
        return out;
    }
}

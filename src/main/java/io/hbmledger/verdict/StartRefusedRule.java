package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;
import static io.hbmledger.verdict.Arith.ratio;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A start the engine refused because too little memory was free (vLLM V1's
 * {@code request_memory}, vllm-ascend's {@code _init_device}): what it asked, what was free,
 * the shortfall, what others held, and the largest share that would have started.
 */
final class StartRefusedRule {

    /**
     * Below this share no engine starts (vllm #50135: 0.22 of 30.30 GiB free, a zombie process
     * held the rest); "at most 0.0" is no advice.
     */
    private static final double NO_ROOM = 0.05;

    private StartRefusedRule() {
    }

    /**
     * One finding per instance: when every TP rank of a start logs its own refusal, the ranks are
     * named once, with the figures of the rank that had the least free (the largest share that
     * starts must pass on every rank), and the other ranks' free memory beside them.
     */
    static List<Finding> apply(RunFacts run) {
        Map<String, List<ServerFacts>> byInstance = new LinkedHashMap<>();
        for (ServerFacts s : run.servers()) {
            if (s.refusal() != null && s.has(Fact.FREE_AT_START, Fact.TOTAL_SEEN) && requested(s).isPresent()) {
                byInstance.computeIfAbsent(s.instance() + "\u0000" + (s.rank() == null), k -> new ArrayList<>()).add(s);
            }
        }
        List<Finding> out = new ArrayList<>();
        for (List<ServerFacts> ranks : byInstance.values()) {
            ServerFacts least = ranks.stream().min(Comparator.comparingLong(s -> s.fact(Fact.FREE_AT_START).bytes())).orElseThrow();
            Finding f = withSplitUnknown(withCapacity(refused(least, requested(least).orElseThrow(), run.accelerator()),
                    least, run), least, run);
            out.add(ranks.size() == 1 ? f : onRanks(f, ranks, least));
        }
        return out;
    }

    /** The finding of the rank with the least free, said once for all the ranks that refused. */
    private static Finding onRanks(Finding f, List<ServerFacts> ranks, ServerFacts least) {
        Set<String> devices = new LinkedHashSet<>();
        ranks.forEach(r -> devices.addAll(r.devices()));
        List<Integer> numbers = ranks.stream().map(ServerFacts::rank).sorted().toList();
        boolean same = ranks.stream().allMatch(r -> r.fact(Fact.FREE_AT_START).bytes().equals(least.fact(Fact.FREE_AT_START).bytes()));
        List<String> others = new ArrayList<>();
        for (ServerFacts r : ranks) {
            if (r != least) {
                others.add("rank " + r.rank() + " " + gib(r.fact(Fact.FREE_AT_START)));
            }
        }
        String text = f.text().replaceFirst("^The start was refused: ", "The start was refused on " + Arith.ranks(numbers)
                + (same ? ", each with the same figures: " : ", each on its own device (free at start: " + String.join(", ", others)
                        + "; the figures are rank " + least.rank() + "'s, the least free): "));
        return new Finding(f.kind(), f.severity(), List.copyOf(devices), f.instance(), text, f.figures(), f.advice());
    }

    /**
     * The device's own capacity beside the total the engine saw: the gap is memory the runtime
     * never offers to torch (vllm-ascend #8621: 64.00 GiB on npu-smi, 60.96 GiB in the log).
     */
    private static Finding withCapacity(Finding f, ServerFacts s, RunFacts run) {
        for (DeviceFacts d : run.devices()) {
            if (s.devices().contains(d.device()) && d.capacity() != null && d.capacity().known()) {
                Figure gap = Arith.minus("outside_torch_view", d.capacity().named("capacity"),
                        s.fact(Fact.TOTAL_SEEN).named("total_seen"));
                List<Figure> figures = new ArrayList<>(f.figures());
                figures.add(d.capacity().named("capacity"));
                figures.add(gap);
                String text = f.text() + " The device has " + gib(d.capacity()) + "; the " + gib(gap)
                        + " between that and the engine's total is never offered to torch.";
                return new Finding(f.kind(), f.severity(), f.devices(), f.instance(), text, figures, f.advice());
            }
        }
        return f;
    }

    /**
     * Without a process table of the server's devices, what each other process holds is unknown
     * (vllm-ascend #8621: instances 1-3 and the runtime together, split unknown); with one, the
     * other_tenant finding names them.
     */
    private static Finding withSplitUnknown(Finding f, ServerFacts s, RunFacts run) {
        boolean listed = run.devices().stream().anyMatch(d -> s.devices().contains(d.device()) && !d.processes().isEmpty());
        if (listed) {
            return f;
        }
        String text = f.text() + " How the " + gib(f.figure("held_by_others").orElseThrow())
                + " held is split among the processes is unknown: the evidence has no process table of the device.";
        return new Finding(f.kind(), f.severity(), f.devices(), f.instance(), text, f.figures(), f.advice());
    }

    /** As the engine printed it, or utilization x total when it printed only those. */
    static Optional<Figure> requested(ServerFacts s) {
        if (s.has(Fact.REQUESTED)) {
            return Optional.of(s.fact(Fact.REQUESTED).named("requested"));
        }
        if (s.has(Fact.UTILIZATION)) {
            return Optional.of(Arith.times("requested", s.fact(Fact.UTILIZATION), s.fact(Fact.TOTAL_SEEN)));
        }
        return Optional.empty();
    }

    private static Finding refused(ServerFacts s, Figure asked, RunFacts.Accelerator acc) {
        Figure total = s.fact(Fact.TOTAL_SEEN).named("total_seen");
        Figure free = s.fact(Fact.FREE_AT_START).named("free_at_start");
        Figure shortfall = Arith.minus("shortfall", asked, free);
        Figure held = Arith.minus("held_by_others", total, free);
        Figure fits = Arith.ratioDown("largest_utilization_that_starts", free, total);
        String share = s.get(Fact.UTILIZATION).map(u -> " (" + ratio(u.value()) + " x " + gib(total) + ")").orElse("");
        String text = "The start was refused: the server asked " + gib(asked) + share + " with " + gib(free)
                + " free; " + gib(held) + " of the " + gib(total) + " the engine sees were already held by other"
                + " processes and the " + acc.runtime() + ", a shortfall of "
                + gib(shortfall) + ".";
        List<Figure> figures = new ArrayList<>(List.of(asked, total, free, shortfall, held, fits));
        s.get(Fact.UTILIZATION).ifPresent(u -> figures.add(1, u.named("utilization")));
        List<String> advice = fits.value() < NO_ROOM ? List.of(
                "The " + acc.device() + " is practically full: " + gib(held) + " of " + gib(total) + " are held and no"
                        + " share of the " + gib(free) + " left can start an engine. Find what holds it (its process"
                        + " list: nvidia-smi, npu-smi info, xpu-smi; a previous vLLM that did not exit, or its"
                        + " orphaned workers, count) and stop it, or start on another " + acc.device() + ".")
                : List.of(
                "gpu_memory_utilization is this instance's own share of the total the engine sees, not a fill"
                        + " level of the card: with " + gib(free) + " free, at most " + ratio(fits.value())
                        + " would have passed the start check (less whatever else starts later).",
                "Or free the memory held by the other " + acc.device() + " processes before starting,"
                        + " and give every instance on a device a share so that the shares sum to at most ~"
                        + ratio(CoTenantsRule.SIDE_BY_SIDE) + ".");
        return new Finding(Finding.Kind.START_REFUSED, Finding.Severity.ERROR, s.devices(), s.instance(), text,
                figures, advice);
    }
}

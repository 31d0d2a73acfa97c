package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;

import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A refused start beside a device sample that shows less free memory than the refusal saw: more
 * was taken on the card after the engine measured its free memory. When that is the refused
 * instance started all the same (its start check disabled, as the reporter of vllm-ascend #8621
 * did, its utilization lowered, or the check passed while the other instances were still loading),
 * it got only what was left: vLLM sizes the KV cache from its budget, not from what is free, so it
 * will likely run out of memory when the cache is allocated or under load.
 */
final class LeftoverStartRule {

    /** Below this drop the two readings agree within what the runtime's own use moves (~1 GiB). */
    private static final long NOISE = 1L << 30;

    private LeftoverStartRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (ServerFacts s : run.servers()) {
            if (s.refusal() == null || !s.has(Fact.FREE_AT_START, Fact.TOTAL_SEEN)) {
                continue;
            }
            Optional<Figure> asked = StartRefusedRule.requested(s);
            for (DeviceFacts d : run.devices()) {
                if (asked.isPresent() && s.devices().contains(d.device()) && sampledAfterStart(d)) {
                    finding(s, asked.get(), d).ifPresent(out::add);
                }
            }
        }
        return out;
    }

    /** A used figure of a sample that may follow the start: not the idle baseline taken before it. */
    private static boolean sampledAfterStart(DeviceFacts d) {
        return d.capacity() != null && d.used() != null && d.capacity().known() && d.used().known()
                && (d.sample() == null || d.sample().moment() != Moment.BASELINE);
    }

    private static Optional<Finding> finding(ServerFacts s, Figure asked, DeviceFacts d) {
        Figure freeAtStart = s.fact(Fact.FREE_AT_START).named("free_at_start");
        Figure freeNow = Arith.minus("free_at_sample", d.capacity().named("capacity"), d.used().named("used"));
        Figure taken = Arith.minus("taken_after_refusal", freeAtStart, freeNow);
        if (taken.bytes() < NOISE || freeNow.bytes() >= asked.bytes()) {
            return Optional.empty();
        }
        String text = d.device() + " shows " + gib(d.used()) + " of " + gib(d.capacity()) + " used, " + gib(freeNow)
                + " free: " + gib(taken) + " less than the " + gib(freeAtStart) + " free when the start was refused, so"
                + " more was taken on the card after that. If this is the refused instance forced past vLLM's start"
                + " check (the check disabled, its gpu_memory_utilization lowered, or the check passing while other"
                + " instances were still loading), it got only what was left on the card (at most " + gib(freeAtStart)
                + ", against the " + gib(asked) + " it asked), and vLLM sizes its KV cache from its budget, not from"
                + " what is free: expect it to run out of memory under load. Otherwise another process started or"
                + " grew on the card since.";
        List<Figure> figures = List.of(asked.named("requested"), freeAtStart, d.capacity().named("capacity"),
                d.used().named("used"), freeNow, taken);
        List<String> advice = List.of("Do not force the start: give the instance a share that fits what is free when it"
                + " starts (the start_refused finding gives the largest), so that its budget is memory it really has,"
                + " or stop another instance on " + d.device() + " first.");
        return Optional.of(new Finding(Finding.Kind.LEFTOVER_START, Finding.Severity.WARN, List.of(d.device()),
                s.instance(), text, figures, advice));
    }
}

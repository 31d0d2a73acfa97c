package io.hbmledger.verdict;

import static io.hbmledger.ledger.Units.gibOrMib;
import static io.hbmledger.verdict.Arith.gib;

import io.hbmledger.ledger.Source;
import java.util.ArrayList;
import java.util.List;

/**
 * A start that failed in vLLM's memory profiling: after the profile run, vLLM (V1
 * {@code determine_available_memory}, V0 {@code determine_num_available_blocks}, vllm-ascend's
 * copies) asserts that free device memory fell since the start, and prints "Error in memory
 * profiling. Initial free memory X, current free memory Y" when it did not. Its KV budget is the
 * fall it measured, so a device where another process released memory meanwhile leaves it
 * nothing it can trust, and the KV cache is never sized.
 *
 * <p>Both readings are of the whole device (mem_get_info), taken before the weights loaded and
 * after the profile run: free after = free at start - what vLLM took + what others released -
 * what others took. vLLM took at least its weights, so others released at least
 * (after - start) + weights; without the weights figure, at least (after - start).
 */
final class ProfilingCheckRule {

    private ProfilingCheckRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (ServerFacts s : run.servers()) {
            if (s.has(Fact.FREE_AT_START, Fact.FREE_AFTER_PROFILE)) {
                out.add(disturbed(s, run.accelerator()));
            }
        }
        return out;
    }

    /** "an NPU", "a GPU", "a device". */
    private static String article(RunFacts.Accelerator acc) {
        return acc == RunFacts.Accelerator.NPU ? "an" : "a";
    }

    private static Finding disturbed(ServerFacts s, RunFacts.Accelerator acc) {
        Figure before = s.fact(Fact.FREE_AT_START).named("free_at_start");
        Figure after = s.fact(Fact.FREE_AFTER_PROFILE).named("free_after_profile");
        Figure rose = Arith.minus("free_memory_rise", after, before);
        List<Figure> figures = new ArrayList<>(List.of(before, after, rose));
        Source at = after.sources().get(0);
        String move = rose.bytes() > 0
                ? "rose from " + gib(before) + " to " + gib(after) + " (+" + gibOrMib(rose.bytes()) + ")"
                : "did not fall (" + gib(before) + " at start, " + gib(after) + " after, as printed)";
        StringBuilder text = new StringBuilder("The start failed in vLLM's memory profiling (" + at.file() + ":"
                + at.line() + "): free memory on the " + acc.device() + " " + move
                + " between the start and the end of the profile run, although loading the weights and profiling can"
                + " only lower it.");
        String orUnseen = " meanwhile" + (rose.bytes() > 0 ? "."
                : ", or the device's free-memory reading does not count vLLM's own allocations.");
        if (s.has(Fact.WEIGHTS)) {
            Figure weights = s.fact(Fact.WEIGHTS).named("weights");
            Figure released = Arith.sum("released_by_others_at_least", rose, weights);
            figures.add(weights);
            figures.add(released);
            text.append(" With ").append(gib(weights)).append(" of weights loaded in between, other processes on the")
                    .append(" device released at least ").append(gibOrMib(released.bytes())).append(orUnseen);
        } else if (rose.bytes() > 0) {
            text.append(" Other processes on the device released at least ").append(gibOrMib(rose.bytes())).append(orUnseen);
        } else {
            text.append(" Other processes on the device released memory").append(orUnseen);
        }
        text.append(" vLLM sizes the KV cache from that fall, so it could not size it and stopped.");
        List<String> advice = List.of(
                "Start vLLM while no other process on the " + acc.device() + " allocates or frees memory (let other"
                        + " jobs on it finish starting or stopping first), or give vLLM " + article(acc) + " " + acc.device()
                        + " or container of its own.",
                "Where free memory cannot fall (a device whose free-memory reading does not count vLLM's own"
                        + " allocations, such as a GPU sharing host memory), set --kv-cache-memory=BYTES"
                        + " (vLLM v0.11+): the KV cache then has that size and memory profiling is skipped.");
        return new Finding(Finding.Kind.PROFILING_DISTURBED, Finding.Severity.ERROR, s.devices(), s.instance(),
                text.toString(), figures, advice);
    }
}

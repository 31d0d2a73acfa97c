package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;
import static io.hbmledger.verdict.Arith.ratio;

import java.util.ArrayList;
import java.util.List;

/**
 * Why a later instance on a shared device finds no KV room on vllm-ascend: its worker
 * (worker_v1.py determine_available_memory) adds to the profile peak everything the device holds
 * outside this process's torch allocator (mem_get_info's total - free - torch's current bytes), so
 * the memory other instances hold comes out of this instance's own share. Two instances at 0.4
 * (vllm-ascend #5917) or 0.3 (#7308): the first starts, the second prints "Available memory: 0";
 * 0.3 then 0.6 starts both (#7308). vLLM's CUDA worker did the same before vllm #14419.
 *
 * <p>Part of {@code kv_negative}: the explanation and the advice, with the other instances'
 * shares when the user states them.
 */
final class DeviceWideBudget {

    /**
     * @param text the sentence to append
     * @param figures the other instances' shares, their sum, and the share this instance needs
     *     at least, when known
     * @param advice what to change
     * @param othersSeen whether the evidence shows other instances or processes on the device
     *     (shares the user states, or a process table with processes not the server's): then this
     *     advice comes first
     */
    record Part(String text, List<Figure> figures, String advice, boolean othersSeen) {
    }

    private DeviceWideBudget() {
    }

    /** What the processes a device sample lists, none tied to this server, hold on its devices together. */
    private static java.util.Optional<Figure> held(ServerFacts s, RunFacts run) {
        List<Figure> parts = new ArrayList<>();
        for (DeviceFacts d : run.devices()) {
            if (s.devices().contains(d.device())) {
                d.processes().stream().filter(p -> !p.server() && p.bytes() != null && p.bytes().known())
                        .forEach(p -> parts.add(p.bytes()));
            }
        }
        return parts.isEmpty() ? java.util.Optional.empty()
                : java.util.Optional.of(Arith.sum("held_by_other_processes", parts.toArray(Figure[]::new)));
    }

    /**
     * vllm-ascend's "Available memory" line says how it counted; for other engines' refusals the
     * part is given only when the evidence shows others on the device, as the likely cause: vLLM
     * counted all memory in use on the device as the instance's own in several releases (vllm
     * #2248 from 0.2.5, #10533 on 0.6.4, #14376 on V1; vllm #18974: "init the first LLM with
     * gpu_memory_utilization=0.45 and the second one 0.9 (as it'll count both)").
     */
    static java.util.Optional<Part> of(ServerFacts s, RunFacts run) {
        boolean ascend = s.has(Fact.DEVICE_WIDE_KV_BUDGET);
        if (!ascend && run.peerUtilizations().isEmpty() && held(s, run).isEmpty()) {
            return java.util.Optional.empty();
        }
        String on = ascend ? "On vllm-ascend" : "On such versions";
        List<Figure> others = new ArrayList<>(run.peerUtilizations());
        List<Figure> figures = new ArrayList<>();
        StringBuilder text = new StringBuilder(ascend ? " vllm-ascend counts everything the device holds outside this"
                + " process's torch allocator (the other processes' memory included) as this instance's non-torch memory,"
                + " so memory another instance or service holds on the device comes out of this instance's own share"
                : " Others hold memory on this device, and vLLM releases that count all memory in use on the device as"
                + " this instance's during profiling (vllm #2248, #10533, #14376) take it out of this instance's own share");
        String advice;
        Figure own = s.get(Fact.UTILIZATION).orElse(null);
        if (own == null && others.size() >= 2) {
            // the refused start is the latest: the last share stated, in start order, is taken as this one's
            Figure last = others.remove(others.size() - 1);
            own = Figure.value("utilization", last.value(), last.confidence(),
                    "the last instance the user states, taken as this log's", last.sources());
            figures.add(own);
            text.append(" (this log taken as the last instance stated, at ").append(ratio(own.value())).append(')');
        }
        if (!others.isEmpty() && own != null) {
            double sum = 0;
            StringBuilder terms = new StringBuilder();
            for (int i = 0; i < others.size(); i++) {
                figures.add(others.get(i).named("other_utilization_" + (i + 1)));
                sum += others.get(i).value();
                terms.append(i == 0 ? "" : " + ").append(ratio(others.get(i).value()));
            }
            double share = own.value();
            Figure sumFigure = Figure.value("other_utilizations_sum", Math.round(sum * 10000) / 10000.0,
                    Figure.derived(others.toArray(Figure[]::new)), terms.toString(),
                    Figure.sourcesOf(others.toArray(Figure[]::new)));
            figures.add(sumFigure);
            text.append(": the other instances stated here take ").append(ratio(sumFigure.value()))
                    .append(" of the total at their full budgets, and this instance's ").append(ratio(share))
                    .append(share <= sum + 1e-9 ? " is not more than that, so nothing is left for its KV cache"
                            : " leaves only " + ratio(Math.round((share - sum) * 10000) / 10000.0) + " for its own weights,"
                                    + " activation peak and KV cache");
            String total = s.get(Fact.TOTAL_SEEN).map(t -> " (" + gib(Arith.times("x", sumFigure, t)) + " of "
                    + gib(t) + ")").orElse("");
            advice = on + " a later instance's gpu_memory_utilization must cover the others' memory too: set it"
                    + " above " + ratio(sumFigure.value()) + total + " plus its own weights, activation peak and KV"
                    + " cache (vllm-ascend #7308: 0.3 then 0.6 starts both, 0.3 and 0.3 does not), keeping the last"
                    + " instance's value at most ~" + ratio(CoTenantsRule.SIDE_BY_SIDE) + "; or give each instance its own device.";
        } else if (held(s, run).isPresent() && s.has(Fact.TOTAL_SEEN)) {
            Figure heldBy = held(s, run).get();
            Figure share = Arith.ratioUp("others_share_of_total", heldBy, s.fact(Fact.TOTAL_SEEN));
            figures.add(heldBy);
            figures.add(share);
            text.append(": the other processes on the device hold ").append(gib(heldBy)).append(", ")
                    .append(ratio(share.value())).append(" of the ").append(gib(s.fact(Fact.TOTAL_SEEN)))
                    .append(" total");
            advice = on + " this instance's gpu_memory_utilization must cover the other processes' "
                    + gib(heldBy) + " too: set it above " + ratio(share.value()) + " plus its own weights, activation"
                    + " peak and KV cache, or free that memory, or give it a device of its own.";
        } else {
            // vllm-ascend's case and example only where its line is in the log: on a CUDA host the
            // advice named vllm-ascend and its issue (fresh-user finding)
            advice = "If another instance or service holds memory on this device, this instance's gpu_memory_utilization"
                    + " must cover that memory too " + (ascend ? "on vllm-ascend" : "on a vLLM release that counts it")
                    + ": set it above the share the others hold plus its own weights, activation peak and KV cache ("
                    + (ascend ? "vllm-ascend #7308: 0.3 then 0.6 starts both, 0.3 and 0.3 does not"
                            : "vLLM 0.6.4's engine arguments: with 50% of the memory used before the start, 0.9 leaves the"
                            + " instance 40%")
                    + "); or give it a device of its own.";
        }
        text.append('.');
        boolean seen = !run.peerUtilizations().isEmpty() || run.devices().stream().anyMatch(d -> s.devices().contains(d.device())
                && d.processes().stream().anyMatch(p -> !p.server()));
        return java.util.Optional.of(new Part(text.toString(), figures, advice, seen));
    }
}

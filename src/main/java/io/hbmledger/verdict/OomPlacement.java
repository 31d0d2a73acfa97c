package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;
import static io.hbmledger.verdict.Arith.ratio;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Units;
import java.util.List;
import java.util.Optional;

/**
 * Where the memory sat when an OOM struck, against the two lines a reader needs: vLLM's budget
 * (gpu_memory_utilization x total) and this process's own allocator. Two real reports set the
 * cases: vllm-ascend #5020 (PyTorch held 58.73 GiB against a 0.85 x 60.96 = 51.82 GiB budget: the
 * maintainer's answer was a lower utilization, 0.8) and vllm-ascend #1670 (PyTorch held 4.37 GiB,
 * 56.58 GiB of the 60.96 GiB sat outside it: a privileged container saw every NPU and another job
 * held the device).
 */
final class OomPlacement {

    /**
     * Outside this process's allocator the runtime context and communication buffers take a few
     * GiB at most; a quarter of the device or more there is another process.
     */
    private static final double FOREIGN_SHARE = 0.25;

    private OomPlacement() {
    }

    /** Memory outside PyTorch large enough to be another process, not this one's runtime. */
    static boolean foreign(Figure outside, Figure total, Figure reserved) {
        return outside.bytes() >= FOREIGN_SHARE * total.bytes() && outside.bytes() > reserved.bytes();
    }

    static String foreignText(Figure outside, Figure total) {
        return " That is " + Math.round(100.0 * outside.bytes() / total.bytes()) + "% of the device: far more than"
                + " a runtime context and communication buffers take, so another process held the device.";
    }

    static String foreignAdvice(RunFacts.Accelerator acc, String device) {
        String smi = device != null && device.startsWith("npu") ? "npu-smi info" : "nvidia-smi";
        String visible = device != null && device.startsWith("npu") ? "ASCEND_RT_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
        return "Find what holds the device (" + smi + " lists its processes; a previous instance that did not exit"
                + " counts) and free it, or start on a free " + acc.device() + " (" + visible + "). In a container,"
                + " pass only the devices it should use: a privileged container sees every device of the host and"
                + " lands on one another job holds. gpu_memory_utilization cannot help while another process holds it.";
    }

    /** vLLM's budget on this device: as the engine printed it, or utilization x the total torch reported at the OOM. */
    static Optional<Figure> budget(ServerFacts s, Figure oomTotal) {
        Optional<Figure> printed = KvBudgetRule.budget(s);
        if (printed.isPresent()) {
            return printed;
        }
        if (s.has(Fact.UTILIZATION) && oomTotal != null) {
            return Optional.of(Arith.times("budget", s.fact(Fact.UTILIZATION), oomTotal));
        }
        return Optional.empty();
    }

    /** " vLLM's budget was ...; PyTorch held ... over it." or "" when PyTorch stayed within the budget. */
    static String overBudgetText(Figure budget, Figure over, Figure total, ServerFacts s) {
        String share = s.has(Fact.UTILIZATION) ? " (" + budget.arithmetic() + ")" : "";
        String text = " vLLM's budget on this device was " + gib(budget) + share + "; PyTorch already held " + gib(over)
                + " more than that (" + over.arithmetic() + "): memory vLLM does not size, such as graphs captured"
                + " after the KV cache, workspaces and communication buffers, or weights and the profiling peak"
                + " larger than the budget.";
        if (total != null && over.bytes() >= FOREIGN_SHARE * total.bytes()) {
            text += " " + Math.round(100.0 * over.bytes() / total.bytes()) + "% of the device beyond the budget is more"
                    + " than graphs and workspaces take: check that one device's weights fit inside the budget and"
                    + " that only one engine runs on each device.";
        }
        return text;
    }

    /**
     * The largest utilization at which this allocation would have fit, had the KV cache been that
     * much smaller: u - (tried - free) / total, rounded down. Only the failing allocation is known,
     * so the answer is an upper bound, not a safe setting.
     */
    static Optional<String> lowerUtilization(ServerFacts s, Figure tried, Figure free, Figure total, List<Figure> figures) {
        if (!s.has(Fact.UTILIZATION) || free == null || total == null || tried.bytes() <= free.bytes()) {
            return Optional.empty();
        }
        double u = s.fact(Fact.UTILIZATION).value();
        Figure missing = Arith.minus("missing", tried, free);
        double cut = Math.ceil(missing.bytes() / (double) total.bytes() * 100 - 1e-9) / 100;
        double at = Math.round((u - cut) * 100) / 100.0;
        if (at <= 0) {
            return Optional.empty();
        }
        figures.add(missing);
        figures.add(Figure.value("utilization_upper_bound", at, Confidence.INFERRED,
                ratio(u) + " - " + Units.gibNumber(missing.bytes()) + " / " + Units.gibNumber(total.bytes()) + " GiB" + " rounded up to " + ratio(cut),
                Figure.sourcesOf(tried, free, total)));
        return Optional.of("Lower gpu_memory_utilization (now " + ratio(u) + "): this allocation alone needed "
                + gib(missing) + " more than was free, so at most " + ratio(at) + " (" + ratio(u) + " - "
                + ratio(cut) + "); the allocations after it are unknown, so leave a margin below that"
                + " (each 0.05 less leaves " + Units.gib(Math.round(0.05 * total.bytes()))
                + " more outside the budget).");
    }
}

package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;

import java.util.ArrayList;
import java.util.List;

/**
 * An out-of-memory error (torch's "CUDA out of memory", torch_npu's "NPU out of memory"):
 * what the allocation asked and what was free of the total at that instant.
 */
final class OomRule {

    private OomRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (ServerFacts s : run.servers()) {
            if (s.oom() == null || !s.has(Fact.OOM_TRIED)) {
                continue;
            }
            Figure tried = s.fact(Fact.OOM_TRIED).named("tried_to_allocate");
            List<Figure> figures = new ArrayList<>(List.of(tried));
            StringBuilder text = new StringBuilder("Out of memory" + (s.rank() == null ? "" : " on rank " + s.rank())
                    + ": an allocation of " + gib(tried) + " failed");
            if (s.has(Fact.OOM_FREE)) {
                Figure free = s.fact(Fact.OOM_FREE).named("free");
                figures.add(free);
                text.append(" with ").append(gib(free)).append(" free");
            }
            if (s.has(Fact.OOM_TOTAL)) {
                Figure total = s.fact(Fact.OOM_TOTAL).named("total_capacity");
                figures.add(total);
                text.append(" of ").append(gib(total));
            }
            text.append('.');
            out.add(new Finding(Finding.Kind.OOM, Finding.Severity.ERROR, s.devices(), s.instance(), text.toString(),
                    figures, List.of("Lower gpu_memory_utilization if the OOM came from memory outside vLLM's budget"
                    + " (graphs, communication buffers, workspaces), or lower max_num_seqs / max_num_batched_tokens"
                    + " if the activation peak under load outgrew the profiled one.")));
        }
        return out;
    }
}

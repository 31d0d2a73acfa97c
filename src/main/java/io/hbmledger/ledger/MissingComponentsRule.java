package io.hbmledger.ledger;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Quantity;
import java.util.List;

/**
 * Names what the evidence could not tell, as unknown lines: a ledger that silently leaves out
 * HCCL or the graph pool reads as if they were zero.
 */
final class MissingComponentsRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        boolean log = ev.has(EvidenceFormat.Family.VLLM_LOG);
        String noLog = "no vLLM log in the run";
        if (d.hasKnown(Component.TORCH_ALLOCATED)) {
            msprof(ev, d);
            return;
        }
        d.putIfAbsent(Entry.unknown(Component.WEIGHTS, log ? "no weights line for this rank in the vLLM log" : noLog));
        String kvNote = log ? "no KV cache figure for this rank in the vLLM log" : noLog;
        if (!ev.vllm(Quantity.KV_CACHE_TOKENS).isEmpty() && ev.quantity(Quantity.KV_BYTES_PER_TOKEN).isEmpty()) {
            kvNote += "; the log gives the KV cache size in tokens (line " + ev.vllm(Quantity.KV_CACHE_TOKENS).get(0).o().line()
                    + "): add the model's config.json to the run to infer bytes";
        }
        if (ev.vllm(Quantity.KV_CACHE_TOKENS).isEmpty() && !ev.vllm(Quantity.GPU_BLOCKS).isEmpty()) {
            TaggedObservation b = ev.vllm(Quantity.GPU_BLOCKS).get(ev.vllm(Quantity.GPU_BLOCKS).size() - 1);
            kvNote += "; the log gives the KV cache as " + b.o().text() + " blocks (line " + b.o().line()
                    + "), not bytes: blocks x block size (--block-size) x config.json's KV bytes per token would"
                    + " give them, which hbm-ledger does not work out yet";
        }
        d.putIfAbsent(Entry.unknown(Component.KV_CACHE, kvNote));
        d.putIfAbsent(Entry.unknown(Component.GRAPH_POOL, log
                ? "no graph capture figure in the log (eager mode, or the line was not printed)" : noLog));
        if (!d.hasKnown(Component.PROFILE_PEAK_REST)) {
            d.putIfAbsent(Entry.unknown(Component.ACTIVATION_PEAK, log ? "no activation peak figure in the log" : noLog));
            d.putIfAbsent(Entry.unknown(Component.NON_TORCH, log ? "no non-torch figure in the log" : noLog));
        }
        msprof(ev, d);
    }

    private static void msprof(EvidenceSet ev, DeviceDraft d) {
        if (Accelerator.gpu(ev)) {
            GpuComponents.unknownUnlessInServerProcesses(d);
            return;
        }
        for (String c : List.of(Component.HCCL, Component.CANN_RUNTIME)) {
            d.putIfAbsent(Entry.unknown(c, "needs msprof evidence (npu_module_mem); vLLM counts it in non-torch"));
        }
    }
}

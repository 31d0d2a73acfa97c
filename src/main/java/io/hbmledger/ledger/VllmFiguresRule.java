package io.hbmledger.ledger;

import io.hbmledger.evidence.Quantity;
import java.util.List;
import java.util.Optional;

/**
 * vLLM's own figures for the rank that ran on this device (reported): weights, KV cache, graph
 * pool, activation peak and non-torch memory.
 *
 * <p>vllm-ascend's "Available memory: N" is the KV cache budget: worker_v1.py
 * {@code determine_available_memory} computes {@code total_npu_memory * gpu_memory_utilization
 * - peak_memory} (peak = torch's allocated peak in the profile run plus non-torch allocations)
 * and the V1 engine turns the whole budget into KV blocks. The activation peak is the profile
 * run's transient peak, freed before the server is ready, so it is shown but not counted in a
 * ready ledger.
 */
final class VllmFiguresRule implements DeviceRule {

    private record Figure(Quantity quantity, String component, String what) {
    }

    private static final List<Figure> FIGURES = List.of(
            new Figure(Quantity.WEIGHTS, Component.WEIGHTS, "model weights loaded (vLLM's \"GB\" is GiB)"),
            new Figure(Quantity.KV_CACHE_AVAILABLE, Component.KV_CACHE, "KV cache memory vLLM allotted"),
            new Figure(Quantity.AVAILABLE_MEMORY, Component.KV_CACHE,
                    "vllm-ascend's KV cache budget (\"Available memory\" = total x utilization - profile peak), allocated as KV blocks at start-up"),
            new Figure(Quantity.GRAPH_MEMORY, Component.GRAPH_POOL, "graph capture pool"),
            new Figure(Quantity.ACTIVATION_PEAK, Component.ACTIVATION_PEAK,
                    "activation peak of vLLM's start-up profile run, not a peak under load"),
            new Figure(Quantity.NON_TORCH, Component.NON_TORCH, "memory outside PyTorch's allocator, vLLM's lump"));

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        int rank = d.ranks.isEmpty() ? -1 : d.ranks.get(0);
        if (rank < 0) {
            return;
        }
        for (Figure f : FIGURES) {
            if (d.hasKnown(f.component)) {
                continue;
            }
            Optional<RankPick.Picked> p = RankPick.pick(ev.vllm(f.quantity), rank, ev.layout());
            if (p.isEmpty() || p.get().t().o().bytes() == null) {
                continue;
            }
            RankPick.Picked pk = p.get();
            TaggedObservation t = pk.t();
            boolean counted = true;
            String note = f.what + "; " + pk.note();
            if (t.o().bytes() < 0) {
                // V1 prints a negative "Available KV cache memory" when nothing is left for KV.
                counted = false;
                note += "; negative: vLLM found no memory left for the KV cache and refuses to start";
            } else if (f.component.equals(Component.ACTIVATION_PEAK) && "ready".equals(d.moment())) {
                counted = false;
                note += "; freed before the server was ready, so not in the sum";
            }
            // a figure carried over to a rank it does not name is inferred: show what was applied
            String applied = pk.confidence() == Confidence.INFERRED
                    ? t.o().text() + " (" + t.source().shortForm().replaceFirst(" \".*$", "") + ") applied to rank " + rank
                            + " = " + t.o().bytes() + " B (" + Units.gib(t.o().bytes()) + ")"
                    : null;
            d.put(new Entry(f.component, t.o().bytes(), pk.confidence(), List.of(t.source()), note,
                    t.momentName() == null ? "startup" : t.momentName(), counted, applied));
        }
    }
}

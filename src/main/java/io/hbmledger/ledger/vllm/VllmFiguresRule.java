package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.owner.KvCacheRule;
import io.hbmledger.ledger.owner.WeightsRule;
import java.util.List;
import java.util.Optional;

/**
 * vLLM's own figures for the rank that ran on this device (reported). Owner of the graph pool,
 * activation peak and non-torch lines: vLLM's figure, else an unknown line that says what is
 * missing (none in an out-of-memory ledger, whose torch_allocated holds them; no activation or
 * non-torch line where {@link ProfilePeakRule} worked their sum out). The weights and KV cache
 * figures are candidates that {@link WeightsRule} and {@link KvCacheRule} weigh ({@link #figure}).
 *
 * <p>vllm-ascend's "Available memory: N" is the KV cache budget: worker_v1.py
 * {@code determine_available_memory} computes {@code total_npu_memory * gpu_memory_utilization
 * - peak_memory} (peak = torch's allocated peak in the profile run plus non-torch allocations)
 * and the V1 engine turns the whole budget into KV blocks. The activation peak is the profile
 * run's transient peak, freed before the server is ready, so it is shown but not counted in a
 * ready ledger.
 */
public final class VllmFiguresRule implements DeviceRule {

    private record Figure(Quantity quantity, String component, String what) {
    }

    /** For one component, the first figure the log prints for the rank is taken. */
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
        boolean inTorchAllocated = OomRule.allocated(ev, d).isPresent();
        decide(ev, d, Component.GRAPH_POOL, inTorchAllocated,
                "no graph capture figure in the log (eager mode, or the line was not printed)");
        boolean lump = d.hasKnown(Component.PROFILE_PEAK_REST);
        decide(ev, d, Component.ACTIVATION_PEAK, inTorchAllocated || lump, "no activation peak figure in the log");
        decide(ev, d, Component.NON_TORCH, inTorchAllocated || lump, "no non-torch figure in the log");
    }

    private static void decide(EvidenceSet ev, DeviceDraft d, String component, boolean noUnknownLine, String missing) {
        Optional<Entry> e = figure(ev, d, component);
        if (e.isPresent()) {
            d.decide(e.get());
        } else if (!noUnknownLine) {
            d.decide(Entry.unknown(component, missing(ev, missing)));
        }
    }

    /** What an unknown vLLM line says: what the log lacks, or that the run holds no log. */
    public static String missing(EvidenceSet ev, String withLog) {
        return ev.has(EvidenceFormat.Family.VLLM_LOG) ? withLog : "no vLLM log in the run";
    }

    /** vLLM's figure of one component for the device's first rank, when the log prints one. */
    public static Optional<Entry> figure(EvidenceSet ev, DeviceDraft d, String component) {
        if (d.ranks().isEmpty()) {
            return Optional.empty();
        }
        int rank = d.ranks().get(0);
        for (Figure f : FIGURES) {
            if (!f.component.equals(component)) {
                continue;
            }
            Optional<RankPick.Picked> p = RankPick.pick(ev.vllm(f.quantity), rank, ev.layout());
            if (p.isPresent() && p.get().t().o().bytes() != null) {
                return Optional.of(entry(f, p.get(), rank, d));
            }
        }
        return Optional.empty();
    }

    private static Entry entry(Figure f, RankPick.Picked pk, int rank, DeviceDraft d) {
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
        return new Entry(f.component, t.o().bytes(), pk.confidence(), List.of(t.source()), note,
                t.momentName() == null ? "startup" : t.momentName(), counted, applied);
    }
}

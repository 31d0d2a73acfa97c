package io.hbmledger.ledger.gpu;

import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.vllm.OomDevices;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The GPU components in CUDA's own words, for NVIDIA runs (owner of {@code nccl},
 * {@code cuda_runtime} and {@code driver_reserved}; {@link GpuComponents} gives its unknown lines only
 * where this rule found nothing, and runs after it):
 * <ul>
 *   <li>{@code driver_reserved}: nvidia-smi's memory.reserved of the device sample (measured).
 *       nvidia-smi counts it in neither used nor free, so it is outside the ledger's used: shown,
 *       not counted. The driver's part of used is {@code driver_baseline} (the idle sample).</li>
 *   <li>{@code nccl}: NCCL's own allocation lines (NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=ALLOC
 *       or P2P), added up for the device (reported: NCCL's figure). Without them, where the log
 *       gives the channels, channels x NCCL_BUFFSIZE (estimated, a lower bound: the Simple
 *       protocol's buffer only). It is inside vLLM's non-torch figure (vLLM takes its memory
 *       snapshot before the communicators are set up) and inside nvidia-smi's per-process figure,
 *       so it is counted only when neither is.</li>
 *   <li>{@code cuda_runtime}: the serving processes' memory less every vLLM figure counted for
 *       the device (inferred, arithmetic shown): the CUDA context, which vLLM's snapshots start
 *       after, library workspaces and vLLM's print rounding. It is what the residual holds of
 *       the serving process, so it is shown, not counted: counting it would force the residual
 *       to 0.</li>
 * </ul>
 */
public final class GpuRuntimeRule implements DeviceRule {

    /** NCCL's DEFAULT_BUFFSIZE (src/include/comm.h: 1 << 22) when NCCL_BUFFSIZE is not set. */
    static final long NCCL_DEFAULT_BUFFSIZE = 4L << 20;

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!Accelerator.gpu(ev)) {
            return;
        }
        driverReserved(ev, d);
        nccl(ev, d);
        cudaRuntime(d);
        // the owner's last candidate: an unknown line naming the nvidia-smi evidence that is missing
        GpuComponents.unknownUnlessInServerProcesses(d);
    }

    private static void driverReserved(EvidenceSet ev, DeviceDraft d) {
        List<EvidenceSet.FileInfo> files = new ArrayList<>();
        if (d.sampleFile() != null) {
            files.add(ev.smiFile(d.sampleFile(), d.sampleMoment()));
        }
        files.addAll(ev.smiFiles(Moment.BASELINE));
        for (EvidenceSet.FileInfo f : files) {
            Optional<TaggedObservation> r = ev.smiRows(f, d.logicalDevice()).stream()
                    .filter(t -> t.quantity() == Quantity.FB_RESERVED).findFirst();
            if (r.isPresent()) {
                TaggedObservation t = r.get();
                d.decide(new Entry(Component.DRIVER_RESERVED, t.o().bytes(), Confidence.MEASURED, List.of(t.source()),
                        "nvidia-smi's memory.reserved: held back by the driver (firmware, ECC, page retirement),"
                                + " counted by nvidia-smi in neither used nor free, so outside used", t.momentName(), true, null)
                        .notCounted("not part of used"));
                return;
            }
        }
    }

    private static void nccl(EvidenceSet ev, DeviceDraft d) {
        List<TaggedObservation> allocs = onDevice(ev, d, Quantity.NCCL_ALLOCATED);
        String inside = inside(d);
        if (!allocs.isEmpty()) {
            long sum = allocs.stream().mapToLong(t -> t.o().bytes()).sum();
            Entry e = new Entry(Component.NCCL, sum, Confidence.REPORTED, allocs.stream().map(TaggedObservation::source).toList(),
                    "device memory NCCL says it allocated (" + allocs.size() + " NCCL_DEBUG=INFO allocation line(s) of pid(s) "
                            + pids(allocs) + "); as NCCL asked for it, before the cuMem granularity rounds it up",
                    "startup", true, allocs.size() > 1 ? sum(allocs) : null);
            d.decide(inside == null ? e : e.notCounted(inside));
            return;
        }
        List<TaggedObservation> channels = onDevice(ev, d, Quantity.NCCL_CHANNELS);
        if (channels.isEmpty()) {
            return;
        }
        TaggedObservation ch = channels.stream().max((a, b) -> Double.compare(a.o().value(), b.o().value())).orElseThrow();
        List<TaggedObservation> buff = onDevice(ev, d, Quantity.NCCL_BUFFSIZE);
        long size = buff.isEmpty() ? NCCL_DEFAULT_BUFFSIZE : buff.get(buff.size() - 1).o().bytes();
        long n = ch.o().value().longValue();
        List<Source> src = new ArrayList<>(List.of(ch.source()));
        buff.stream().reduce((a, b) -> b).ifPresent(b -> src.add(b.source()));
        long est = n * size;
        d.decide(new Entry(Component.NCCL, est, Confidence.ESTIMATED, src,
                "a lower bound of NCCL's buffers: one Simple-protocol buffer per collective channel (the log has no"
                        + " allocation lines; NCCL_DEBUG_SUBSYS=INIT,ENV,ALLOC prints them); LL, LL128, tree, NVLS and P2P"
                        + " buffers are not in it",
                "startup", true, n + " coll channels x " + (buff.isEmpty() ? "NCCL's default NCCL_BUFFSIZE " : "NCCL_BUFFSIZE ")
                        + size + " B = " + est + " B (" + Units.gib(est) + ")")
                .notCounted("an estimate: " + (inside == null ? "its bytes stay in the residual" : inside)));
    }

    /** Why NCCL's bytes are already in a counted line, or null when they are in none. */
    private static String inside(DeviceDraft d) {
        if (d.hasKnownCounted(Component.NON_TORCH)) {
            return "inside vLLM's non_torch (vLLM's memory snapshot is taken before NCCL sets up its buffers), so not in the sum";
        }
        if (d.hasKnownCounted(Component.SERVER_PROCESSES)) {
            return "inside server_processes, so not in the sum";
        }
        return null;
    }

    private static void cudaRuntime(DeviceDraft d) {
        Optional<Entry> server = d.get(Component.SERVER_PROCESSES).filter(Entry::known);
        if (server.isEmpty() || server.get().counted() || !"ready".equals(d.moment())
                || !d.hasKnownCounted(Component.WEIGHTS) || !d.hasKnownCounted(Component.KV_CACHE)) {
            return;
        }
        long rest = server.get().bytes();
        StringBuilder arith = new StringBuilder("server_processes " + server.get().bytes() + " B");
        List<Source> src = new ArrayList<>(server.get().sources());
        for (String c : List.of(Component.WEIGHTS, Component.KV_CACHE, Component.GRAPH_POOL, Component.NON_TORCH, Component.NCCL)) {
            Optional<Entry> e = d.get(c).filter(x -> x.known() && x.counted());
            if (e.isPresent()) {
                rest -= e.get().bytes();
                arith.append(" - ").append(c).append(' ').append(e.get().bytes()).append(" B");
                src.addAll(e.get().sources());
            }
        }
        arith.append(" = ").append(rest).append(" B (").append(Units.gib(rest)).append(')');
        d.decide(new Entry(Component.CUDA_RUNTIME, rest, Confidence.INFERRED, src,
                "the serving process's memory that vLLM's figures do not cover: the CUDA context (made before vLLM's"
                        + " first memory snapshot, so in none of its figures), cuBLAS / cuDNN workspaces"
                        + (d.hasKnownCounted(Component.NON_TORCH) ? "" : ", NCCL buffers, non-torch memory")
                        + " and the print rounding of vLLM's figures; it is what the residual holds of this process",
                d.sampleMoment(), true, arith.toString())
                .notCounted("counting it would force the residual to 0"));
    }

    /** NCCL lines of this device: NCCL's [cudaDev] is the process-local index, mapped as an OOM line's. */
    private static List<TaggedObservation> onDevice(EvidenceSet ev, DeviceDraft d, Quantity q) {
        List<TaggedObservation> out = new ArrayList<>();
        for (TaggedObservation t : ev.vllm(q)) {
            Integer dev = OomDevices.deviceOf(t, ev.layout());
            if (dev != null && dev == d.logicalDevice()) {
                out.add(t);
            }
        }
        return out;
    }

    private static String pids(List<TaggedObservation> l) {
        return l.stream().map(t -> String.valueOf(t.o().context().pid())).distinct().toList().toString();
    }

    private static String sum(List<TaggedObservation> l) {
        long s = l.stream().mapToLong(t -> t.o().bytes()).sum();
        StringBuilder b = new StringBuilder();
        for (TaggedObservation t : l) {
            b.append(b.length() == 0 ? "" : " + ").append(t.o().bytes());
        }
        return b.append(" B = ").append(s).append(" B (").append(Units.gib(s)).append(')').toString();
    }
}

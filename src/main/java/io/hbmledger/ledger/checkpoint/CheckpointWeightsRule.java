package io.hbmledger.ledger.checkpoint;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.owner.WeightsRule;
import io.hbmledger.ledger.vllm.OomDevices;
import io.hbmledger.ledger.vllm.VllmFiguresRule;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.WeightsCrossCheck;
import io.hbmledger.weights.WeightsPlan;
import io.hbmledger.weights.WeightsPlanner;
import java.util.Locale;
import java.util.Optional;

/**
 * The checkpoint's share of this device next to vLLM's reported weights: a line shown for
 * reference (not in the sum), estimated because the sharding is worked out from tensor names by
 * vLLM's rules ({@link WeightsPlanner}), with the difference from vLLM's figure and the serving
 * choices that would explain it ({@link WeightsCrossCheck}: MTP drafter, expert parallelism,
 * float32 kept, MLA matrices derived after loading, no TP). A check passes when the two agree
 * within 2% or 64 MiB: vLLM's figure is an allocator delta around loading, so rotary caches and
 * small buffers keep even the right plan a few MiB off.
 *
 * <p>Owner of {@code weights_checkpoint} and its check. When the log has no weights figure for
 * the rank, the checkpoint's share is {@link WeightsRule}'s second candidate ({@link #standIn}),
 * estimated, and says so.
 */
public final class CheckpointWeightsRule implements DeviceRule {

    public static final String COMPONENT = "weights_checkpoint";
    public static final String CHECK = "weights_vs_checkpoint";
    private static final long MIN_TOLERANCE = 64L << 20;

    /** The checkpoint's share of the device's first rank, with the arithmetic that gave it. */
    private record Share(CheckpointEvidence c, WeightsPlan plan, long bytes, String arithmetic) {
    }

    private static Optional<Share> share(EvidenceSet ev, DeviceDraft d) {
        CheckpointEvidence c = ev.checkpoint();
        if (c == null || d.ranks().isEmpty()) {
            return Optional.empty();
        }
        WeightsPlan plan = WeightsPlanner.plan(c.checkpoint(), c.layout(), c.options());
        int rank = d.ranks().get(0);
        int stage = stageOf(rank, c.layout());
        long share = stage < plan.stageBytes().size() ? plan.stageBytes().get(stage) : plan.perDeviceBytes();
        CheckpointTotal total = CheckpointTotal.of(c);
        String arithmetic = "checkpoint " + total.bytes() + " B (" + total.confidence().jsonName() + ": " + total.how()
                + "), sharded by vLLM's rules for each tensor name under " + c.layout() + ", " + served(c, plan)
                + (c.layout().pp() > 1 ? ", PP stage " + stage : "") + " = " + share + " B ("
                + Units.gib(share) + ") on rank " + rank;
        return Optional.of(new Share(c, plan, share, arithmetic));
    }

    /**
     * The checkpoint's share standing in as the weights line (estimated): a {@link WeightsRule}
     * candidate for a rank the log prints no weights figure for.
     */
    public static Optional<Entry> standIn(EvidenceSet ev, DeviceDraft d) {
        Optional<Share> s = share(ev, d);
        if (s.isEmpty()) {
            return Optional.empty();
        }
        CheckpointEvidence c = s.get().c();
        long share = s.get().bytes();
        String note = "vLLM printed no weights figure for this rank: the checkpoint's share stands in (" + c.shown()
                + "; sharding worked out from tensor names is an estimate, not vLLM's own figure)";
        // In an out-of-memory ledger the share splits PyTorch's allocated bytes into weights and the rest.
        Optional<TaggedObservation> alloc = OomDevices.of(ev, d.logicalDevice()).stream()
                .filter(t -> t.quantity() == Quantity.OOM_ALLOCATED && t.o().bytes() != null).reduce((a, b) -> b);
        if (alloc.isPresent()) {
            long rest = alloc.get().o().bytes() - share;
            note += "; PyTorch's allocated " + alloc.get().o().text() + " (" + alloc.get().source().shortForm()
                    + ") minus this share leaves " + Units.gib(rest)
                    + " for everything else PyTorch held when the allocation failed (activations, buffers; KV cache if allocated yet)";
        }
        return Optional.of(new Entry(Component.WEIGHTS, share, Confidence.ESTIMATED, c.sources(), note, "static", true,
                s.get().arithmetic()));
    }

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        Optional<Share> s = share(ev, d);
        // compared with vLLM's own figure, whichever line WeightsRule chose
        Optional<Entry> vllm = VllmFiguresRule.figure(ev, d, Component.WEIGHTS);
        if (s.isEmpty() || vllm.isEmpty()) {
            return;
        }
        CheckpointEvidence c = s.get().c();
        long share = s.get().bytes();
        String arithmetic = s.get().arithmetic();
        long reported = vllm.get().bytes();
        WeightsCrossCheck.Result r = WeightsCrossCheck.compare(c.checkpoint(), c.layout(), c.options(), reported);
        long diff = reported - share;
        long tolerance = Math.max(share / 50, MIN_TOLERANCE);
        boolean agree = Math.abs(diff) <= tolerance;
        String note = "the checkpoint's share on this device (" + c.shown() + "), next to vLLM's weights line;"
                + " sharding worked out from tensor names is an estimate; vLLM - checkpoint = " + signedGib(diff)
                + " (" + CheckpointTotal.signed(diff) + " B)"
                + (agree ? ", within " + Units.mib(tolerance) + " (2%): the plan (" + c.layout() + ", --dtype "
                        + c.options().dtype() + ") explains vLLM's figure"
                        : "; likely, closest first: " + reasons(r));
        d.decide(new Entry(COMPONENT, share, Confidence.ESTIMATED, c.sources(), note, "static", false, arithmetic));
        String detail = "vLLM's weights " + Units.gib(reported) + " (" + vllm.get().sources().get(0).shortForm()
                + ") vs the checkpoint's estimated share " + Units.gib(share) + ": " + signedGib(diff);
        if (agree) {
            d.check(new Check(CHECK, Check.Status.PASS, detail + ", within " + Units.mib(tolerance)));
        } else {
            WeightsCrossCheck.Alternative best = r.closest();
            // "closest explanation: as planned (off by -13.27 GiB)" named as an explanation what explains
            // nothing (fresh-user finding: a 14B checkpoint beside a 7B log)
            boolean explains = Math.abs(best.difference()) <= tolerance;
            d.check(new Check(CHECK, Check.Status.WARN, detail + ", more than " + Units.mib(tolerance)
                    + (explains ? "; closest explanation: " : "; no explanation tried fits within " + Units.mib(tolerance)
                            + " (is the checkpoint the model that was served?); the closest: ")
                    + best.reason() + " (" + Units.gib(best.perDeviceBytes()) + ", off by "
                    + signedGib(best.difference()) + ")"));
        }
    }

    private static String served(CheckpointEvidence c, WeightsPlan plan) {
        var cfg = c.checkpoint().config();
        if (cfg != null && cfg.quantization() != null) {
            String m = cfg.quantization().method();
            return "quantized weights (" + (m == null ? "quantization_config" : m) + ") kept at their stored size";
        }
        return "weights served as " + plan.servedDtype();
    }

    /** vLLM numbers ranks pp_rank x tp + tp_rank within a DP replica. */
    public static int stageOf(int rank, ParallelLayout l) {
        return l.pp() <= 1 ? 0 : Math.min((rank / l.tp()) % l.pp(), l.pp() - 1);
    }

    private static String reasons(WeightsCrossCheck.Result r) {
        StringBuilder b = new StringBuilder();
        int n = 0;
        for (WeightsCrossCheck.Alternative a : r.alternatives()) {
            if (n++ == 3) {
                break;
            }
            b.append(b.length() == 0 ? "" : "; ").append(a.reason()).append(" -> ").append(Units.gib(a.perDeviceBytes()))
                    .append(", off by ").append(signedGib(a.difference()));
        }
        return b.toString();
    }

    /** Signed, in GiB from 1 GiB up, else in MiB (a few MiB off must not read as "-0.00 GiB"). */
    static String signedGib(long bytes) {
        return Math.abs(bytes) >= Units.GIB ? String.format(Locale.ROOT, "%+.2f GiB", bytes / (double) Units.GIB)
                : String.format(Locale.ROOT, "%+.2f MiB", bytes / (double) Units.MIB);
    }
}

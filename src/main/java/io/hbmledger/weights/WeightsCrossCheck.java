package io.hbmledger.weights;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Puts a checkpoint's per-device figure next to the weights vLLM reported for one worker and
 * lists which serving choice would explain the difference. Pure; for the ledger.
 *
 * <p>Each alternative re-plans the same checkpoint with one setting changed (MTP drafter loaded,
 * expert parallelism toggled, float32 kept) and reports how close it lands. vLLM's figure is a
 * memory delta around loading, so small extras (rotary caches, buffers, allocator rounding)
 * keep even the right alternative a few MiB off.
 */
public final class WeightsCrossCheck {

    /**
     * @param reason what the alternative assumes
     * @param perDeviceBytes the alternative's per-device figure
     * @param difference reported - perDeviceBytes
     */
    public record Alternative(String reason, long perDeviceBytes, long difference) {
    }

    /**
     * @param estimatedBytes the plan's per-device figure (estimated)
     * @param reportedBytes what vLLM reported for the worker (reported)
     * @param difference reported - estimated
     * @param alternatives every alternative, closest first; the plan itself is among them
     */
    public record Result(long estimatedBytes, long reportedBytes, long difference, List<Alternative> alternatives) {

        public Result {
            alternatives = List.copyOf(alternatives);
        }

        /** The alternative closest to vLLM's figure. */
        public Alternative closest() {
            return alternatives.get(0);
        }
    }

    private WeightsCrossCheck() {
    }

    public static Result compare(Checkpoint ckpt, ParallelLayout layout, PlanOptions opts, long reportedBytes) {
        WeightsPlan base = WeightsPlanner.plan(ckpt, layout, opts);
        List<Alternative> alts = new ArrayList<>();
        alts.add(alt("as planned (" + layout + ", --dtype " + opts.dtype() + (opts.drafterLoaded() ? ", MTP drafter" : "") + ")",
                base.perDeviceBytes(), reportedBytes));
        if (base.mlaDerivedBytes() > 0) {
            alts.add(alt("plus the MLA W_UK_T / W_UV matrices derived from kv_b_proj after loading",
                    base.perDeviceBytes() + base.mlaDerivedBytes(), reportedBytes));
        }
        boolean hasMtp = ckpt.tensors().stream().anyMatch(t -> TensorRole.of(t.name(), ckpt.config()).mtp());
        if (hasMtp) {
            PlanOptions o = new PlanOptions(opts.dtype(), opts.kvCacheDtype(), !opts.drafterLoaded(), opts.blockSize());
            alts.add(alt(opts.drafterLoaded() ? "MTP drafter not loaded" : "MTP drafter loaded (speculative decoding)",
                    WeightsPlanner.plan(ckpt, layout, o).perDeviceBytes(), reportedBytes));
        }
        boolean moe = ckpt.tensors().stream().anyMatch(t -> TensorRole.of(t.name(), ckpt.config()).kind() == TensorRole.Kind.EXPERT);
        if (moe && layout.moeGroup() > 1) {
            ParallelLayout other = new ParallelLayout(layout.tp(), layout.dp(), layout.pp(), !layout.ep());
            alts.add(alt(layout.ep() ? "experts TP-sharded (no --enable-expert-parallel)" : "expert parallel (--enable-expert-parallel)",
                    WeightsPlanner.plan(ckpt, other, opts).perDeviceBytes(), reportedBytes));
        }
        if (ckpt.config() != null && Integer.valueOf(4).equals(ckpt.config().dtypeBytes()) && "auto".equalsIgnoreCase(opts.dtype())) {
            PlanOptions o = new PlanOptions("float32", opts.kvCacheDtype(), opts.drafterLoaded(), opts.blockSize());
            alts.add(alt("served in float32 (--dtype float32)", WeightsPlanner.plan(ckpt, layout, o).perDeviceBytes(), reportedBytes));
        }
        if (layout.tp() > 1) {
            ParallelLayout whole = new ParallelLayout(1, layout.dp(), layout.pp(), layout.ep());
            alts.add(alt("no tensor parallelism (the whole model on one device)", WeightsPlanner.plan(ckpt, whole, opts).perDeviceBytes(),
                    reportedBytes));
        }
        alts.sort(Comparator.comparingLong(a -> Math.abs(a.difference())));
        return new Result(base.perDeviceBytes(), reportedBytes, reportedBytes - base.perDeviceBytes(), alts);
    }

    private static Alternative alt(String reason, long bytes, long reported) {
        return new Alternative(reason, bytes, reported - bytes);
    }
}

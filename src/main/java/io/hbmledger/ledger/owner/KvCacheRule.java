package io.hbmledger.ledger.owner;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.check.KvTokensCheck;
import io.hbmledger.ledger.vllm.KvFromTokens;
import io.hbmledger.ledger.vllm.OomRule;
import io.hbmledger.ledger.vllm.VllmFiguresRule;
import java.util.Optional;

/**
 * Owner of the KV cache line. Precedence, by design and not by rule order:
 * <ol>
 *   <li>vLLM's KV figure for the device's rank ({@link VllmFiguresRule#figure}: "Available KV
 *       cache memory", else vllm-ascend's "Available memory" budget), reported;</li>
 *   <li>with a checkpoint: KV tokens x the checkpoint's KV bytes per token on this device
 *       ({@link KvFromTokens#estimated}), estimated;</li>
 *   <li>without one: KV tokens x config.json's KV bytes per token / TP
 *       ({@link KvFromTokens#inferred}), inferred;</li>
 *   <li>unknown, saying what the log gives instead (tokens, blocks); no line in an
 *       out-of-memory ledger, whose torch_allocated holds the KV cache ({@link OomRule#allocated}).</li>
 * </ol>
 * {@link OomRule} may take the line out of the sum; {@link KvTokensCheck} compares it with the tokens.
 */
public final class KvCacheRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        VllmFiguresRule.figure(ev, d, Component.KV_CACHE).map(e -> sizedBySmallestRank(ev, d, e))
                .or(() -> KvFromTokens.estimated(ev, d))
                .or(() -> KvFromTokens.inferred(ev, d))
                .or(() -> OomRule.allocated(ev, d).isPresent() ? Optional.empty()
                        : Optional.of(Entry.unknown(Component.KV_CACHE, unknownNote(ev))))
                .ifPresent(d::decide);
    }

    /** Differences below this are rounding of vLLM's printed figures, not an idle cache. */
    private static final long SAME = 64L << 20;

    /**
     * Refines vLLM's per-rank figure: one engine gives every TP/PP rank the same number of KV
     * blocks, sized by the rank with the least available memory (V1 unifies the workers' KV
     * configs to the minimum; V0 takes the minimum block count), so a rank that reported more
     * holds only the smallest rank's cache and the rest of its figure stays unused. Only ranks'
     * own lines of the same data-parallel replica are compared.
     */
    private static Entry sizedBySmallestRank(EvidenceSet ev, DeviceDraft d, Entry own) {
        if (d.ranks().isEmpty() || own.bytes() == null || own.bytes() <= 0) {
            return own;
        }
        int rank = d.ranks().get(0);
        int replica = ev.layout().tp() * ev.layout().pp();
        TaggedObservation smallest = null;
        java.util.Map<Integer, TaggedObservation> perRank = new java.util.HashMap<>();
        for (TaggedObservation t : ev.vllm(Quantity.KV_CACHE_AVAILABLE)) {
            if (t.rank() != null && t.o().bytes() != null && t.rank() / replica == rank / replica) {
                perRank.put(t.rank(), t);
            }
        }
        if (perRank.size() < 2) {
            return own;
        }
        for (TaggedObservation t : perRank.values()) {
            if (smallest == null || t.o().bytes() < smallest.o().bytes()) {
                smallest = t;
            }
        }
        long unused = own.bytes() - smallest.o().bytes();
        if (unused <= SAME || smallest.o().bytes() <= 0) {
            return own;
        }
        java.util.List<io.hbmledger.ledger.Source> sources = new java.util.ArrayList<>(own.sources());
        sources.add(smallest.source());
        return new Entry(Component.KV_CACHE, smallest.o().bytes(), io.hbmledger.ledger.Confidence.INFERRED, sources,
                "KV cache allocated on this rank: vLLM gives every rank of one engine the blocks of its smallest rank"
                        + " (rank " + smallest.rank() + "); this rank reported " + io.hbmledger.ledger.Units.gib(own.bytes())
                        + " available, so " + io.hbmledger.ledger.Units.gib(unused) + " of it stays unused",
                own.moment(), own.counted(), "min over the engine's ranks = rank " + smallest.rank() + "'s "
                        + smallest.o().bytes() + " B (" + io.hbmledger.ledger.Units.gib(smallest.o().bytes())
                        + "); this rank's own " + own.bytes() + " B - " + smallest.o().bytes() + " B = " + unused
                        + " B unused");
    }

    private static String unknownNote(EvidenceSet ev) {
        String note = VllmFiguresRule.missing(ev, "no KV cache figure for this rank in the vLLM log");
        if (!ev.vllm(Quantity.KV_CACHE_TOKENS).isEmpty() && ev.quantity(Quantity.KV_BYTES_PER_TOKEN).isEmpty()) {
            note += "; the log gives the KV cache size in tokens (line " + ev.vllm(Quantity.KV_CACHE_TOKENS).get(0).o().line()
                    + "): add the model's config.json to the run to infer bytes";
        }
        if (ev.vllm(Quantity.KV_CACHE_TOKENS).isEmpty() && !ev.vllm(Quantity.GPU_BLOCKS).isEmpty()) {
            TaggedObservation b = ev.vllm(Quantity.GPU_BLOCKS).get(ev.vllm(Quantity.GPU_BLOCKS).size() - 1);
            note += "; the log gives the KV cache as " + b.o().text() + " blocks (line " + b.o().line()
                    + "), not bytes: blocks x block size (--block-size) x config.json's KV bytes per token would"
                    + " give them, which hbm-ledger does not work out yet";
        }
        return note;
    }
}

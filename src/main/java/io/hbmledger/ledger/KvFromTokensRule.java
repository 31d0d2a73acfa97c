package io.hbmledger.ledger;

import io.hbmledger.evidence.Quantity;
import java.util.List;
import java.util.Optional;

/**
 * KV cache from vLLM's "KV cache size: N tokens" times the model's KV bytes per token
 * (config.json arithmetic), only when no better KV figure exists. The per-device share divides
 * by TP, which holds when the KV heads split evenly across TP ranks (not for MLA, whose latent
 * is replicated); the note says so.
 */
final class KvFromTokensRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        // With a checkpoint, KvTokensCheck works the per-device share out per model (MLA, TP > KV heads).
        if (d.ranks.isEmpty() || d.hasKnown(Component.KV_CACHE) || ev.checkpoint() != null) {
            return;
        }
        Optional<RankPick.Picked> tokens = RankPick.pick(ev.vllm(Quantity.KV_CACHE_TOKENS), d.ranks.get(0), ev.layout());
        List<TaggedObservation> bpt = ev.quantity(Quantity.KV_BYTES_PER_TOKEN);
        if (tokens.isEmpty() || bpt.isEmpty()) {
            return;
        }
        TaggedObservation n = tokens.get().t();
        TaggedObservation b = bpt.get(0);
        long perToken = b.o().bytes() != null ? b.o().bytes() : (long) (double) b.o().value();
        long tokensN = (long) (double) n.o().value();
        int tp = ev.layout().tp();
        long bytes = tokensN * perToken / tp;
        String arithmetic = tokensN + " tokens x " + perToken + " B/token" + (tp > 1 ? " / TP " + tp : "")
                + " = " + bytes + " B (" + Units.gib(bytes) + ")";
        d.put(new Entry(Component.KV_CACHE, bytes, Confidence.INFERRED, List.of(n.source(), b.source()),
                "KV cache size in tokens times the model's KV bytes per token; no direct KV figure in the log"
                        + (tp > 1 ? "; assumes the KV heads split evenly over TP (not true for MLA or when TP > KV heads)" : ""),
                "startup", true, arithmetic));
    }
}

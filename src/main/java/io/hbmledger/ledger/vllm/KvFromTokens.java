package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.checkpoint.KvPerToken;
import io.hbmledger.ledger.owner.KvCacheRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The KV cache worked out from vLLM's "KV cache size: N tokens" and the model's KV bytes per
 * token: {@link KvCacheRule}'s candidates when the log prints no KV figure in bytes.
 */
public final class KvFromTokens {

    private KvFromTokens() {
    }

    /**
     * With a checkpoint: tokens times the checkpoint's KV bytes per token on this device
     * ({@link KvPerToken}: MLA, TP beyond the KV heads), estimated.
     */
    public static Optional<Entry> estimated(EvidenceSet ev, DeviceDraft d) {
        if (ev.checkpoint() == null || d.ranks().isEmpty()) {
            return Optional.empty();
        }
        Optional<RankPick.Picked> tokens = RankPick.pick(ev.vllm(Quantity.KV_CACHE_TOKENS), d.ranks().get(0), ev.layout());
        KvPerToken pt = KvPerToken.of(ev);
        if (tokens.isEmpty() || pt == null) {
            return Optional.empty();
        }
        TaggedObservation n = tokens.get().t();
        long tokensN = (long) (double) n.o().value();
        long expected = tokensN * pt.bytes();
        String arithmetic = tokensN + " tokens x " + pt.bytes() + " B/token on this device (" + pt.how() + ") = "
                + expected + " B (" + Units.gib(expected) + ")";
        List<Source> src = new ArrayList<>();
        src.add(n.source());
        src.addAll(pt.sources());
        return Optional.of(new Entry(Component.KV_CACHE, expected, Confidence.ESTIMATED, src,
                "no KV cache figure in the log: its size in tokens times the checkpoint's KV bytes per token on this device",
                "startup", true, arithmetic));
    }

    /**
     * Without a checkpoint: tokens times config.json's KV bytes per token, divided by TP, which
     * holds when the KV heads split evenly across TP ranks (not for MLA, whose latent is
     * replicated); the note says so. Inferred.
     */
    public static Optional<Entry> inferred(EvidenceSet ev, DeviceDraft d) {
        if (d.ranks().isEmpty() || ev.checkpoint() != null) {
            return Optional.empty();
        }
        Optional<RankPick.Picked> tokens = RankPick.pick(ev.vllm(Quantity.KV_CACHE_TOKENS), d.ranks().get(0), ev.layout());
        List<TaggedObservation> bpt = ev.quantity(Quantity.KV_BYTES_PER_TOKEN);
        if (tokens.isEmpty() || bpt.isEmpty()) {
            return Optional.empty();
        }
        TaggedObservation n = tokens.get().t();
        TaggedObservation b = bpt.get(0);
        long perToken = b.o().bytes() != null ? b.o().bytes() : (long) (double) b.o().value();
        long tokensN = (long) (double) n.o().value();
        int tp = ev.layout().tp();
        long bytes = tokensN * perToken / tp;
        String arithmetic = tokensN + " tokens x " + perToken + " B/token" + (tp > 1 ? " / TP " + tp : "")
                + " = " + bytes + " B (" + Units.gib(bytes) + ")";
        return Optional.of(new Entry(Component.KV_CACHE, bytes, Confidence.INFERRED, List.of(n.source(), b.source()),
                "KV cache size in tokens times the model's KV bytes per token; no direct KV figure in the log"
                        + (tp > 1 ? "; assumes the KV heads split evenly over TP (not true for MLA or when TP > KV heads)" : ""),
                "startup", true, arithmetic));
    }
}

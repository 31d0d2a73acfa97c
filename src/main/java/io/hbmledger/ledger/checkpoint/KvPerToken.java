package io.hbmledger.ledger.checkpoint;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.weights.KvCacheEstimate;
import io.hbmledger.weights.WeightsPlanner;
import java.util.List;

/**
 * The model's KV cache bytes per token on one device: from the run's checkpoint (MLA keeps the
 * whole latent on every rank; KV heads split over TP, one per rank when TP exceeds them), else
 * from a config.json among the evidence with the same rules.
 *
 * @param bytes bytes per token on this device
 * @param layers the layers of the largest PP stage, null when not known
 * @param sources the checkpoint's or config.json's lines
 * @param how where the figure came from, in words
 */
public record KvPerToken(long bytes, Integer layers, List<Source> sources, String how) {

    /** Null when neither a checkpoint config nor a config.json gives bytes per token. */
    public static KvPerToken of(EvidenceSet ev) {
        CheckpointEvidence c = ev.checkpoint();
        if (c != null && c.checkpoint().config() != null) {
            KvCacheEstimate kv = WeightsPlanner.plan(c.checkpoint(), c.layout(), c.options()).kv();
            if (kv != null) {
                int layers = WeightsPlanner.maxStageLayers(c.checkpoint().config().numLayers(), c.layout().pp());
                String dtype = "auto".equalsIgnoreCase(c.options().kvCacheDtype())
                        ? "KV dtype by vLLM's auto rule (the served dtype)"
                        : "KV dtype " + c.options().kvCacheDtype() + " as the run states (kv_cache_dtype)";
                return new KvPerToken(kv.bytesPerTokenPerDevice(), layers, c.sources(),
                        kv.formula() + (kv.bytesPerToken() == kv.bytesPerTokenPerDevice() ? ", whole on every rank"
                                : ", this rank's share under " + c.layout()) + "; " + dtype);
            }
        }
        List<TaggedObservation> bpt = ev.quantity(Quantity.KV_BYTES_PER_TOKEN);
        if (bpt.isEmpty()) {
            return null;
        }
        TaggedObservation b = bpt.get(0);
        long whole = b.o().bytes() != null ? b.o().bytes() : (long) (double) b.o().value();
        Integer layers = first(ev, Quantity.NUM_LAYERS);
        int tp = ev.layout().tp();
        if (!ev.quantity(Quantity.KV_LORA_RANK).isEmpty()) {
            return new KvPerToken(whole, layers, List.of(b.source()), "config.json, MLA: the latent is whole on every rank; checkpoint dtype");
        }
        Integer heads = first(ev, Quantity.NUM_KV_HEADS);
        if (heads == null || heads <= 0) {
            return new KvPerToken(whole / tp, layers, List.of(b.source()), "config.json / TP " + tp + ", KV head count not known; checkpoint dtype");
        }
        int perRank = tp >= heads ? 1 : heads / tp;
        return new KvPerToken(whole / heads * perRank, layers, List.of(b.source()),
                "config.json, " + perRank + " of " + heads + " KV heads per rank under TP " + tp + "; checkpoint dtype");
    }

    private static Integer first(EvidenceSet ev, Quantity q) {
        List<TaggedObservation> l = ev.quantity(q);
        return l.isEmpty() || l.get(0).o().value() == null ? null : (int) (double) l.get(0).o().value();
    }

}

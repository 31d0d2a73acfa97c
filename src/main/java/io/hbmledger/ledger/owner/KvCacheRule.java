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
        VllmFiguresRule.figure(ev, d, Component.KV_CACHE)
                .or(() -> KvFromTokens.estimated(ev, d))
                .or(() -> KvFromTokens.inferred(ev, d))
                .or(() -> OomRule.allocated(ev, d).isPresent() ? Optional.empty()
                        : Optional.of(Entry.unknown(Component.KV_CACHE, unknownNote(ev))))
                .ifPresent(d::decide);
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

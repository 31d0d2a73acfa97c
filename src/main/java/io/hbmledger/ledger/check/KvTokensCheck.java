package io.hbmledger.ledger.check;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.checkpoint.KvPerToken;
import io.hbmledger.ledger.owner.KvCacheRule;
import io.hbmledger.ledger.vllm.KvFromTokens;
import io.hbmledger.ledger.vllm.RankPick;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * vLLM's KV cache figure against "GPU KV cache size: N tokens" times the model's KV bytes per
 * token on one device (config.json arithmetic, estimated): a check with the arithmetic shown.
 *
 * <p>vLLM V1 turns its KV budget into whole blocks ({@code kv_cache_utils.py get_num_blocks}:
 * {@code num_blocks = available_memory // page_size // num_layers}, page_size = one block of
 * one layer) and logs {@code num_blocks x block_size} tokens, so tokens x bytes per token is
 * at most the budget and falls short of it by less than one block of every layer. The check
 * passes within one 128-token block (the Ascend default; CUDA's 16 is smaller) plus the
 * rounding of the printed figure. More than that left over is KV memory of layers the config
 * does not list (a drafter's, EAGLE or MTP) or a wider KV dtype; less means a narrower KV dtype
 * or a config that is not the served model's.
 *
 * <p>Bytes per token per device: from the run's checkpoint (MLA keeps the whole latent on
 * every rank; KV heads split over TP, one per rank when TP exceeds them), else from a
 * config.json among the evidence with the same rules ({@link KvPerToken}). When no KV figure was
 * printed, the product is a {@link KvCacheRule} candidate ({@link KvFromTokens}); the check then
 * has nothing to compare.
 */
public final class KvTokensCheck implements DeviceRule {

    public static final String CHECK = "kv_cache_vs_tokens";
    private static final int BLOCK = 128;
    private static final Pattern AMOUNT = Pattern.compile("(\\d[\\d,]*)(?:\\.(\\d+))?\\s*([KMGT]i?B)?");

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (d.ranks().isEmpty()) {
            return;
        }
        Optional<RankPick.Picked> tokens = RankPick.pick(ev.vllm(Quantity.KV_CACHE_TOKENS), d.ranks().get(0), ev.layout());
        KvPerToken pt = KvPerToken.of(ev);
        if (tokens.isEmpty() || pt == null) {
            return;
        }
        TaggedObservation n = tokens.get().t();
        long tokensN = (long) (double) n.o().value();
        long expected = tokensN * pt.bytes();
        String arithmetic = tokensN + " tokens x " + pt.bytes() + " B/token on this device (" + pt.how() + ") = "
                + expected + " B (" + Units.gib(expected) + ")";
        Optional<Entry> kv = d.get(Component.KV_CACHE).filter(Entry::known);
        if (kv.isEmpty()) {
            return;
        }
        Entry e = kv.get();
        if (e.sources().contains(n.source())) {
            if (e.confidence() == Confidence.ESTIMATED) {
                // the checkpoint stand-in is this very product: no line to compare, and none to show
                return;
            }
            d.check(new Check(CHECK, Check.Status.SKIPPED, "the KV line is itself tokens x bytes per token: nothing to compare"));
            return;
        }
        long reported = e.bytes();
        long gap = reported - expected;
        long block = BLOCK * pt.bytes();
        Source rs = e.sources().get(0);
        long rounding = rounding(rs.text());
        String detail = "vLLM's KV cache " + Units.gib(reported) + " (" + rs.shortForm() + ") vs " + arithmetic
                + ": left over " + gap + " B (" + Units.mib(gap) + ")";
        if (gap >= -rounding && gap <= block + rounding) {
            d.check(new Check(CHECK, Check.Status.PASS, detail + ", less than one " + BLOCK + "-token block ("
                    + Units.mib(block) + ")" + (rounding > 0 ? " plus the figure's print rounding" : "")
                    + ": vLLM turned its budget into whole blocks"));
        } else if (expected > 0 && Math.abs(reported - 2 * expected) <= block + rounding) {
            d.check(new Check(CHECK, Check.Status.WARN, detail + layersWorth(gap, expected, pt) + ": twice what the tokens need, so vLLM held each KV"
                    + " element in twice the bytes assumed (e.g. a 16-bit KV cache where fp8 was assumed)"));
        } else if (expected > 0 && Math.abs(2 * reported - expected) <= 2 * (block + rounding)) {
            d.check(new Check(CHECK, Check.Status.WARN, detail + ": half what the tokens need, so vLLM held each KV"
                    + " element in half the bytes assumed (e.g. an fp8 KV cache; set deployment.kv_cache_dtype)"));
        } else if (gap > 0) {
            d.check(new Check(CHECK, Check.Status.WARN, detail + layersWorth(gap, expected, pt) + ", more than one " + BLOCK
                    + "-token block: KV layers the config does not list share the budget (a drafter's, EAGLE or MTP),"
                    + " or the KV cache dtype is wider than assumed"));
        } else {
            d.check(new Check(CHECK, Check.Status.WARN, detail + ": the tokens need more than vLLM's figure;"
                    + " the KV cache dtype is narrower than assumed (fp8?) or the config is not the served model's"));
        }
    }

    private static String layersWorth(long gap, long expected, KvPerToken pt) {
        return pt.layers() == null || pt.layers() == 0 || expected == 0 ? ""
                : String.format(java.util.Locale.ROOT, " (%.2f layers' worth at this token count)",
                        gap / (double) (expected / pt.layers()));
    }

    /** Half a unit of the printed figure's last digit, in bytes ("31.84 GiB": 0.005 GiB). */
    public static long rounding(String text) {
        if (text == null) {
            return 0;
        }
        Matcher m = AMOUNT.matcher(text);
        if (!m.find() || m.group(3) == null) {
            return 0;
        }
        int digits = m.group(2) == null ? 0 : m.group(2).length();
        String u = m.group(3);
        double unit = u.startsWith("K") ? 1L << 10 : u.startsWith("M") ? 1L << 20 : u.startsWith("G") ? 1L << 30 : 1L << 40;
        return (long) Math.ceil(unit * 0.5 * Math.pow(10, -digits));
    }
}

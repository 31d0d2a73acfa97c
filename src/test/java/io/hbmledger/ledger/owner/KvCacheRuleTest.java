package io.hbmledger.ledger.owner;

import static io.hbmledger.ledger.owner.HandMadeRun.GIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link KvCacheRule}: vLLM's KV figure, then tokens x bytes per token, then an unknown line. */
class KvCacheRuleTest {

    private static Entry kv(EvidenceSet ev) {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        new KvCacheRule().apply(ev, d);
        return d.get(Component.KV_CACHE).orElseThrow();
    }

    @Test
    void availableKvCacheMemoryWinsOverTheAscendBudgetAndOverTokens() {
        // both of vLLM's figures and the tokens: "Available KV cache memory: 20.00 GiB" is taken
        EvidenceSet ev = new HandMadeRun().withLog()
                .logBytes(Quantity.AVAILABLE_MEMORY, 21 * GIB, 12, "21.00 GiB")
                .logBytes(Quantity.KV_CACHE_AVAILABLE, 20 * GIB, 10, "20.00 GiB")
                .logValue(Quantity.KV_CACHE_TOKENS, 100_000, 11, "100,000")
                .configBytes(Quantity.KV_BYTES_PER_TOKEN, 131_072, 3).evidence();
        Entry e = kv(ev);

        assertThat(e.bytes()).isEqualTo(21_474_836_480L); // 20 x 2^30
        assertThat(e.confidence()).isEqualTo(Confidence.REPORTED);
        assertThat(e.sources().get(0).line()).isEqualTo(10);
    }

    @Test
    void withoutABytesFigureTokensTimesConfigBytesPerTokenOverTpIsInferred() {
        // 100000 tokens x 131072 B/token / TP 2 = 6553600000 B = 6.10 GiB (6553600000 / 2^30 = 6.1035)
        EvidenceSet ev = new HandMadeRun().tp(2).withLog()
                .logValue(Quantity.KV_CACHE_TOKENS, 100_000, 11, "100,000")
                .configBytes(Quantity.KV_BYTES_PER_TOKEN, 131_072, 3).evidence();
        Entry e = kv(ev);

        assertThat(e.bytes()).isEqualTo(6_553_600_000L);
        assertThat(e.confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(e.arithmetic()).isEqualTo("100000 tokens x 131072 B/token / TP 2 = 6553600000 B (6.10 GiB)");
    }

    @Test
    void blocksAloneLeaveTheLineUnknownAndNamed() {
        EvidenceSet ev = new HandMadeRun().withLog().logValue(Quantity.GPU_BLOCKS, 5_000, 30, "5000").evidence();
        Entry e = kv(ev);

        assertThat(e.known()).isFalse();
        assertThat(e.note()).startsWith("no KV cache figure for this rank in the vLLM log; the log gives the KV cache"
                + " as 5000 blocks (line 30)");
    }

    /**
     * TP 4 where rank 2 reports 22.64 GiB available and the others about 34.1: vLLM gives every
     * rank rank 2's block count, so rank 0 holds 22.64 GiB and 34.12 - 22.64 = 11.48 GiB of its
     * figure stays unused (inferred); rank 2's own line stays reported.
     */
    @Test
    void everyRankOfAnEngineHoldsTheSmallestRanksCache() {
        long r0 = Math.round(34.12 * GIB);
        long r2 = Math.round(22.64 * GIB);
        EvidenceSet ev = new HandMadeRun().tp(4).withLog()
                .rankBytes(0, Quantity.KV_CACHE_AVAILABLE, r0, 6, "34.12 GiB")
                .rankBytes(1, Quantity.KV_CACHE_AVAILABLE, Math.round(34.10 * GIB), 7, "34.10 GiB")
                .rankBytes(2, Quantity.KV_CACHE_AVAILABLE, r2, 8, "22.64 GiB")
                .rankBytes(3, Quantity.KV_CACHE_AVAILABLE, Math.round(34.11 * GIB), 9, "34.11 GiB").evidence();
        DeviceDraft rank0 = new DeviceDraft(0, List.of(0));
        new KvCacheRule().apply(ev, rank0);
        Entry e = rank0.get(Component.KV_CACHE).orElseThrow();
        assertThat(e.bytes()).isEqualTo(r2);
        assertThat(e.confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(e.note()).contains("rank 2", "11.48 GiB of it stays unused");
        DeviceDraft rank2 = new DeviceDraft(2, List.of(2));
        new KvCacheRule().apply(ev, rank2);
        assertThat(rank2.get(Component.KV_CACHE).orElseThrow().confidence()).isEqualTo(Confidence.REPORTED);
    }
}

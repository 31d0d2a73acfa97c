package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tensor-parallel ranks load the same shard and get the same budget, so their KV cache and
 * non-torch figures should agree. A rank whose figure differs by more than the tolerance had
 * memory on its physical device that was not its own (another process during profiling, a
 * leftover context): the difference is named.
 */
final class RankMismatchRule {

    /** Differences below this are allocator rounding and timing, not another tenant. */
    static final long TOLERANCE = 256L << 20;

    private RankMismatchRule() {
    }

    static List<Finding> apply(RunFacts run) {
        Map<String, List<ServerFacts>> byInstance = new LinkedHashMap<>();
        for (ServerFacts s : run.servers()) {
            if (s.rank() != null) {
                byInstance.computeIfAbsent(s.instance(), k -> new ArrayList<>()).add(s);
            }
        }
        List<Finding> out = new ArrayList<>();
        for (List<ServerFacts> ranks : byInstance.values()) {
            for (Fact f : List.of(Fact.KV_CACHE, Fact.NON_TORCH)) {
                compare(ranks, f, out);
            }
        }
        return out;
    }

    private static void compare(List<ServerFacts> ranks, Fact fact, List<Finding> out) {
        List<ServerFacts> with = ranks.stream().filter(r -> r.has(fact)).toList();
        if (with.size() < 2) {
            return;
        }
        long[] values = with.stream().mapToLong(r -> r.fact(fact).bytes()).sorted().toArray();
        long median = values[values.length / 2];
        for (ServerFacts r : with) {
            Figure mine = r.fact(fact);
            long diff = mine.bytes() - median;
            if (Math.abs(diff) <= TOLERANCE) {
                continue;
            }
            Figure typical = io.hbmledger.verdict.Figure.bytes("peer_median", median, mine.confidence(),
                    "median over " + with.size() + " ranks", List.of());
            Figure delta = Arith.minus("difference", mine.named("rank_" + r.rank()), typical);
            String what = fact == Fact.KV_CACHE ? "KV cache" : "non-torch memory";
            String text = "Rank " + r.rank() + " reports " + what + " of " + gib(mine) + " where its peers report "
                    + gib(typical) + " (" + gib(delta) + "): with the same shard and budget, that difference is"
                    + " memory on its device that is not the rank's"
                    + (fact == Fact.KV_CACHE && diff < 0 ? " (another process, or a leftover context)." : ".");
            out.add(new Finding(Finding.Kind.RANK_MISMATCH, Finding.Severity.WARN, r.devices(), r.instance(), text,
                    List.of(mine.named("rank_" + r.rank()), typical, delta),
                    List.of("Look at what else holds that device (npu-smi / nvidia-smi process table) before start.")));
        }
    }
}

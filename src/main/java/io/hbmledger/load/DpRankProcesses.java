package io.hbmledger.load;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The deployment of processes that each run one data-parallel rank: {@code VLLM_DP_RANK=r
 * VLLM_DP_SIZE=N CUDA_VISIBLE_DEVICES=... vllm serve ...} (vllm/envs.py; ParallelConfig takes the
 * variables when no --data-parallel-size above 1 is given) or {@code --data-parallel-rank r}. Each
 * such process is one replica: TP x PP ranks on its own devices. The settings that follow a DP rank
 * (same line, the continued command) are that process's; those before the first are shared.
 * <ul>
 *   <li>one process: its own layout, DP 1 on its own devices, the origin naming "DP rank r of N";</li>
 *   <li>processes of DP ranks 0..N-1 with the same TP and PP: one deployment of DP N, its devices
 *       the processes' lists in DP rank order (vLLM's global rank = DP rank x TP x PP + ...);</li>
 *   <li>anything else (a rank missing, different sizes, a list that does not cover TP x PP): none.</li>
 * </ul>
 */
final class DpRankProcesses {

    private DpRankProcesses() {
    }

    static Optional<Layout> of(List<TaggedObservation> deploy, List<Long> serverPids, String model) {
        Map<Quantity, TaggedObservation> shared = new EnumMap<>(Quantity.class);
        TreeMap<Integer, Map<Quantity, TaggedObservation>> byRank = new TreeMap<>();
        Map<Quantity, TaggedObservation> current = shared;
        for (TaggedObservation t : deploy) {
            if (t.quantity() == Quantity.DATA_PARALLEL_RANK) {
                current = byRank.computeIfAbsent((int) Math.round(t.o().value()), r -> new EnumMap<>(Quantity.class));
            }
            TaggedObservation seen = current.putIfAbsent(t.quantity(), t);
            if (seen != null && !LogDeployment.same(seen, t)) {
                return Optional.empty();
            }
        }
        List<Integer> sizes = null;
        List<Integer> devices = new ArrayList<>();
        List<String> where = new ArrayList<>();
        for (Map.Entry<Integer, Map<Quantity, TaggedObservation>> e : byRank.entrySet()) {
            Map<Quantity, TaggedObservation> p = new EnumMap<>(shared);
            p.putAll(e.getValue());
            List<Integer> own = java.util.Arrays.asList(LogDeployment.count(p.get(Quantity.TENSOR_PARALLEL_SIZE)),
                    LogDeployment.count(p.get(Quantity.PIPELINE_PARALLEL_SIZE)), LogDeployment.count(p.get(Quantity.DATA_PARALLEL_SIZE)));
            if (sizes != null && !Objects.equals(sizes, own)) {
                return Optional.empty();
            }
            sizes = own;
            int perProcess = (own.get(0) == null ? 1 : own.get(0)) * (own.get(1) == null ? 1 : own.get(1));
            List<Integer> listed = LogDeployment.devices(p.get(Quantity.VISIBLE_DEVICES), perProcess);
            if (p.containsKey(Quantity.VISIBLE_DEVICES) && listed.isEmpty()) {
                return Optional.empty(); // fewer ids than the process's ranks, or UUIDs: no logical ids
            }
            devices.addAll(listed);
            where.add(p.get(Quantity.DATA_PARALLEL_RANK).file() + ":" + p.get(Quantity.DATA_PARALLEL_RANK).o().line());
        }
        Integer tp = sizes.get(0);
        Integer pp = sizes.get(1);
        Integer n = sizes.get(2);
        int first = byRank.firstKey();
        if (byRank.size() == 1) {
            Layout one = Layout.of(tp, 1, pp, devices, serverPids, model);
            return Optional.of(one.withOrigin("one process of DP rank " + first + (n == null ? "" : " of " + n)
                    + ", TP x PP on its own devices, read from " + where.get(0)));
        }
        int dp = byRank.size();
        boolean allRanks = first == 0 && byRank.lastKey() == dp - 1 && (n == null || n == dp);
        boolean devicesOfEach = devices.isEmpty() || devices.size() == dp * (tp == null ? 1 : tp) * (pp == null ? 1 : pp);
        if (!allRanks || !devicesOfEach) {
            return Optional.empty();
        }
        return Optional.of(Layout.of(tp, dp, pp, devices, serverPids, model)
                .withOrigin(dp + " processes, one per DP rank, read from " + String.join(", ", where)));
    }
}

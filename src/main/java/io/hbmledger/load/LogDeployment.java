package io.hbmledger.load;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.vllm.VllmServers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The deployment as the evidence itself states it, for evidence files given without --tp,
 * --dp, --pp or --devices: the engine's arguments or config line, or the start command in a
 * log or a paste ({@code --tensor-parallel-size 4}, {@code ASCEND_RT_VISIBLE_DEVICES=4,5}).
 * Options and run.json always win; when the evidence names several different sizes (two
 * instances in one paste) nothing is taken from it. A log with several servers states the
 * deployment of the server its ledger lines come from ({@link VllmServers}): a restart's sizes
 * give way to the last start's, and of servers of different models only the last model's count,
 * so that the deployment, the device type and the ledger lines describe one server. Processes
 * that each run one DP rank ({@code VLLM_DP_RANK}, {@code --data-parallel-rank}) are read by
 * {@link DpRankProcesses}.
 */
final class LogDeployment {

    private LogDeployment() {
    }

    private static final java.util.Set<Quantity> DEPLOYMENT = java.util.EnumSet.of(Quantity.TENSOR_PARALLEL_SIZE,
            Quantity.DATA_PARALLEL_SIZE, Quantity.PIPELINE_PARALLEL_SIZE, Quantity.VISIBLE_DEVICES, Quantity.DATA_PARALLEL_RANK);

    /** @param servers the run's vLLM servers, indexed once by the loader over its observations, restarts set aside */
    static Optional<Layout> of(VllmServers servers, List<Long> serverPids, String model) {
        List<TaggedObservation> deploy = servers.observations().stream()
                .filter(t -> DEPLOYMENT.contains(t.quantity()) && servers.kept(t)).toList();
        return stated(deploy, serverPids, model).map(l -> servers.used().stream()
                .filter(u -> deploy.stream().anyMatch(t -> t.file().equals(u.file())))
                .findFirst().map(u -> l.withOrigin(l.origin() + "; " + u.said())).orElse(l));
    }

    private static Optional<Layout> stated(List<TaggedObservation> deploy, List<Long> serverPids, String model) {
        if (deploy.stream().anyMatch(t -> t.quantity() == Quantity.DATA_PARALLEL_RANK)) {
            // each process runs one DP rank: its VLLM_DP_SIZE is the deployment's, not its own
            return DpRankProcesses.of(deploy, serverPids, model);
        }
        Map<Quantity, TaggedObservation> first = new LinkedHashMap<>();
        for (TaggedObservation t : deploy) {
            Quantity q = t.quantity();
            TaggedObservation seen = first.putIfAbsent(q, t);
            if (seen != null && !same(seen, t)) {
                return Optional.empty();
            }
        }
        if (first.isEmpty()) {
            return Optional.empty();
        }
        Integer tp = count(first.get(Quantity.TENSOR_PARALLEL_SIZE));
        Integer dp = count(first.get(Quantity.DATA_PARALLEL_SIZE));
        Integer pp = count(first.get(Quantity.PIPELINE_PARALLEL_SIZE));
        int ranks = (tp == null ? 1 : tp) * (dp == null ? 1 : dp) * (pp == null ? 1 : pp);
        List<Integer> devices = devices(first.get(Quantity.VISIBLE_DEVICES), ranks);
        if (tp == null && dp == null && pp == null && devices.isEmpty()) {
            return Optional.empty();
        }
        // "serve.log:1, :12": each file named once, as the ledger cites several lines of one file
        Map<String, List<Integer>> lines = new LinkedHashMap<>();
        first.values().forEach(t -> lines.computeIfAbsent(t.file(), k -> new ArrayList<>()).add(t.o().line()));
        List<String> where = new ArrayList<>();
        lines.forEach((file, ls) -> {
            List<Integer> distinct = ls.stream().distinct().sorted().toList();
            StringBuilder b = new StringBuilder(file);
            for (int i = 0; i < distinct.size(); i++) {
                b.append(i == 0 ? ":" : ", :").append(distinct.get(i));
            }
            where.add(b.toString());
        });
        String what = (tp != null || dp != null || pp != null ? "sizes" : "") + (devices.isEmpty() ? "" : (tp != null
                || dp != null || pp != null ? " and devices" : "devices"));
        return Optional.of(Layout.of(tp, dp, pp, devices, serverPids, model)
                .withOrigin(what + " read from " + String.join(", ", where)));
    }

    /**
     * What options replaced of the layout the evidence states, in words, or null when they agree:
     * the options replace it whole, so {@code --devices 4} alone runs TP 1 where the log says TP 4
     * (fresh-user finding: that was silent).
     */
    static String overridden(Layout stated, Layout given) {
        List<String> differ = new ArrayList<>();
        if (stated.tp() != given.tp()) {
            differ.add("TP " + stated.tp());
        }
        if (stated.dp() != given.dp()) {
            differ.add("DP " + stated.dp());
        }
        if (stated.pp() != given.pp()) {
            differ.add("PP " + stated.pp());
        }
        if (differ.isEmpty()) {
            return null;
        }
        return "the options replace the deployment the evidence states (" + String.join(", ", differ) + ", "
                + stated.origin() + "): the ledger uses TP " + given.tp() + " x DP " + given.dp() + " x PP " + given.pp()
                + "; give --tp, --dp and --pp too to keep what the evidence says";
    }

    static boolean same(TaggedObservation a, TaggedObservation b) {
        return a.quantity() == Quantity.VISIBLE_DEVICES ? a.o().text().equals(b.o().text())
                : a.o().value().equals(b.o().value());
    }

    static Integer count(TaggedObservation t) {
        return t == null || t.o().value() == null || t.o().value() < 1 ? null : (int) Math.round(t.o().value());
    }

    /**
     * The listed ids in rank order, when they are plain numbers (UUIDs name no logical id) and
     * cover the ranks: rank i runs on the i-th listed device.
     */
    static List<Integer> devices(TaggedObservation t, int ranks) {
        if (t == null) {
            return List.of();
        }
        List<Integer> ids = new ArrayList<>();
        for (String part : t.o().text().split(",")) {
            String p = part.trim();
            if (!p.matches("\\d{1,4}")) {
                return List.of();
            }
            ids.add(Integer.parseInt(p));
        }
        return ids.size() >= ranks ? List.copyOf(ids.subList(0, ranks)) : List.of();
    }
}

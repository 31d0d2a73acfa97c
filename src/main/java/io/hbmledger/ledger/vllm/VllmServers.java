package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The vLLM logs of a run grouped once into their servers ({@link ServerStartsInLog}): each log's
 * observations, the line each of its servers starts at, and the lines a device's ledger may take
 * (of a log with servers of different models, only the last model's). Built once per evidence set
 * (the ledger's rules look lines up many times); immutable.
 */
public final class VllmServers {

    /**
     * The server a log's ledger lines, deployment and device type are taken from, in a log with
     * servers of different models.
     *
     * @param file the log
     * @param servers how many servers the log holds
     * @param fromLine the line the used server's first start begins at (1-based)
     * @param label the used server's model as written
     */
    public record Used(String file, int servers, int fromLine, String label) {

        /** Which server of the log was used, for a deployment's origin: "the last model's of N servers in it (M from line L)". */
        public String said() {
            return "the last model's of the " + servers + " servers in " + file + " (" + label + " from line " + fromLine + ")";
        }
    }

    private final List<TaggedObservation> all;
    private final Map<String, List<TaggedObservation>> byLog;
    private final Map<String, List<Integer>> servers;
    private final Map<Quantity, List<TaggedObservation>> ledgerLines;
    private final Map<String, boolean[]> keptServers;
    private final List<Used> used;

    private VllmServers(List<TaggedObservation> all, Map<String, List<TaggedObservation>> byLog,
                        Map<String, List<Integer>> servers, Map<String, boolean[]> keptServers, List<Used> used) {
        this.all = all;
        this.byLog = byLog;
        this.servers = servers;
        this.keptServers = keptServers;
        this.ledgerLines = ledgerLines(byLog, keptServers, servers);
        this.used = used;
    }

    /** @param all a run's observations, restarts already set aside ({@link ServerStartsInLog#lastStartOnly}) */
    public static VllmServers of(List<TaggedObservation> all) {
        Map<String, List<TaggedObservation>> byLog = grouped(all);
        Map<String, List<Integer>> servers = new LinkedHashMap<>();
        Map<String, boolean[]> kept = new LinkedHashMap<>();
        List<Used> used = new ArrayList<>();
        byLog.forEach((file, obs) -> {
            List<Integer> s = List.copyOf(ServerStartsInLog.servers(obs));
            servers.put(file, s);
            if (s.isEmpty()) {
                return;
            }
            ModelName[] models = ServerStartsInLog.modelsOf(obs, s);
            ModelName last = models[models.length - 1];
            boolean[] keep = new boolean[s.size()];
            for (int i = 0; i < keep.length; i++) {
                keep[i] = last == null || models[i] == null || models[i].same(last);
            }
            kept.put(file, keep);
            if (ServerStartsInLog.differentModels(obs, s)) {
                int first = 0;
                while (!keep[first]) {
                    first++;
                }
                String label = ServerStartsInLog.labelsOf(obs, s).get(s.get(s.size() - 1)).replaceFirst(", DP rank \\d+$", "");
                used.add(new Used(file, s.size(), Math.max(s.get(first), 1), label));
            }
        });
        return new VllmServers(List.copyOf(all), byLog, Collections.unmodifiableMap(servers), kept, List.copyOf(used));
    }

    /**
     * The same servers over observations that differ from those this index was built from only in
     * their tags (the ranks the loader sets once the deployment is known): the starts, the models
     * kept and the server used are kept, the lines regrouped. Observations of other files, lines
     * or quantities are indexed afresh ({@link #of}).
     */
    public VllmServers over(List<TaggedObservation> retagged) {
        if (retagged == all) {
            return this;
        }
        Map<String, List<TaggedObservation>> byLog = grouped(retagged);
        return sameLines(byLog) ? new VllmServers(List.copyOf(retagged), byLog, servers, keptServers, used) : of(retagged);
    }

    private boolean sameLines(Map<String, List<TaggedObservation>> other) {
        if (!other.keySet().equals(byLog.keySet())) {
            return false;
        }
        for (Map.Entry<String, List<TaggedObservation>> log : byLog.entrySet()) {
            List<TaggedObservation> mine = log.getValue();
            List<TaggedObservation> theirs = other.get(log.getKey());
            if (mine.size() != theirs.size()) {
                return false;
            }
            for (int i = 0; i < mine.size(); i++) {
                if (mine.get(i).o().line() != theirs.get(i).o().line() || mine.get(i).quantity() != theirs.get(i).quantity()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Map<String, List<TaggedObservation>> grouped(List<TaggedObservation> all) {
        Map<String, List<TaggedObservation>> byLog = new LinkedHashMap<>();
        ServerStartsInLog.byLog(all).forEach((file, obs) -> byLog.put(file, List.copyOf(obs)));
        return Collections.unmodifiableMap(byLog);
    }

    private static Map<Quantity, List<TaggedObservation>> ledgerLines(Map<String, List<TaggedObservation>> byLog,
                                                                     Map<String, boolean[]> kept,
                                                                     Map<String, List<Integer>> servers) {
        Map<Quantity, List<TaggedObservation>> lines = new EnumMap<>(Quantity.class);
        for (Map.Entry<String, List<TaggedObservation>> log : byLog.entrySet()) {
            List<TaggedObservation> obs = log.getValue();
            boolean[] keep = kept.get(log.getKey());
            for (int i = 0; i < obs.size(); i++) {
                TaggedObservation t = obs.get(i);
                if (keep == null || keep[serverOf(obs, i, servers.get(log.getKey()))]) {
                    lines.computeIfAbsent(t.quantity(), q -> new ArrayList<>()).add(t);
                }
            }
        }
        lines.replaceAll((q, l) -> List.copyOf(l));
        return Collections.unmodifiableMap(lines);
    }

    /** The observations this index was built from, restarts set aside, in run order. */
    public List<TaggedObservation> observations() {
        return all;
    }

    /**
     * The vLLM lines of one quantity a device's ledger may take, logs in run order and lines in
     * file order: of a log with servers of different models, only those of the last model's
     * server(s) (all its DP ranks), so that one device's lines never mix two servers' figures. A
     * server whose model is not printed is kept: nothing tells it apart.
     */
    public List<TaggedObservation> lines(Quantity q) {
        return ledgerLines.getOrDefault(q, List.of());
    }

    /**
     * The server of a log's {@code i}-th observation. The platform line ("Automatically detected
     * platform cuda.") comes before its server's first start marker: it is the server of the
     * figure that follows it, not of the one before.
     */
    private static int serverOf(List<TaggedObservation> obs, int i, List<Integer> starts) {
        TaggedObservation t = obs.get(i);
        int own = ServerStartsInLog.startIndex(starts, t.o().line());
        if (t.quantity() != Quantity.DEVICE_TYPE || i > 0 && obs.get(i - 1).o().line() == t.o().line()) {
            return own; // a figure beside it: the engine config's device_config=, the "# npu blocks" line
        }
        for (int j = i + 1; j < obs.size(); j++) {
            TaggedObservation n = obs.get(j);
            if (n.quantity() != Quantity.DEVICE_TYPE && n.quantity() != Quantity.EARLIER_SERVER_START) {
                return n.o().line() != t.o().line() && n.quantity() == Quantity.SERVER_START
                        ? ServerStartsInLog.startIndex(starts, n.o().line()) : own;
            }
        }
        return own;
    }

    /** Whether an observation may stand in a device's ledger: any not from a vLLM log, or one of its log's last model. */
    public boolean kept(TaggedObservation t) {
        boolean[] keep = t.isVllm() ? keptServers.get(t.file()) : null;
        return keep == null || keep[ServerStartsInLog.startIndex(servers.get(t.file()), t.o().line())];
    }

    /** The vLLM observations by log file, in file order. */
    public Map<String, List<TaggedObservation>> byLog() {
        return byLog;
    }

    /** The line each server of a log starts at when it holds several ({@link ServerStartsInLog#servers}), else empty. */
    public List<Integer> servers(String file) {
        return servers.getOrDefault(file, List.of());
    }

    /** The logs that hold servers of different models, each with the server its figures are taken from. */
    public List<Used> used() {
        return used;
    }
}

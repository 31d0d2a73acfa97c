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

        /** "{@code file} holds N servers of different models; the last model's (M, from file:L) is used". */
        public String said() {
            return file + " holds " + servers + " servers of different models; the deployment, device type and ledger"
                    + " lines are the last model's (" + label + ", from " + file + ":" + fromLine + ")";
        }
    }

    private final Map<String, List<TaggedObservation>> byLog;
    private final Map<String, List<Integer>> servers;
    private final Map<Quantity, List<TaggedObservation>> ledgerLines;
    private final Map<String, boolean[]> keptServers;
    private final List<Used> used;

    private VllmServers(Map<String, List<TaggedObservation>> byLog, Map<String, List<Integer>> servers,
                        Map<String, boolean[]> keptServers, Map<Quantity, List<TaggedObservation>> ledgerLines, List<Used> used) {
        this.byLog = byLog;
        this.servers = servers;
        this.keptServers = keptServers;
        this.ledgerLines = ledgerLines;
        this.used = used;
    }

    /** @param all a run's observations, restarts already set aside ({@link ServerStartsInLog#lastStartOnly}) */
    public static VllmServers of(List<TaggedObservation> all) {
        Map<String, List<TaggedObservation>> byLog = new LinkedHashMap<>();
        ServerStartsInLog.byLog(all).forEach((file, obs) -> byLog.put(file, List.copyOf(obs)));
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
        Map<Quantity, List<TaggedObservation>> lines = new EnumMap<>(Quantity.class);
        for (List<TaggedObservation> obs : byLog.values()) {
            for (TaggedObservation t : obs) {
                if (kept(t, servers, kept)) {
                    lines.computeIfAbsent(t.quantity(), q -> new ArrayList<>()).add(t);
                }
            }
        }
        lines.replaceAll((q, l) -> List.copyOf(l));
        return new VllmServers(Collections.unmodifiableMap(byLog), Collections.unmodifiableMap(servers), kept,
                Collections.unmodifiableMap(lines), List.copyOf(used));
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

    /** Whether an observation may stand in a device's ledger: any not from a vLLM log, or one of its log's last model. */
    public boolean kept(TaggedObservation t) {
        return kept(t, servers, keptServers);
    }

    private static boolean kept(TaggedObservation t, Map<String, List<Integer>> servers, Map<String, boolean[]> keptServers) {
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

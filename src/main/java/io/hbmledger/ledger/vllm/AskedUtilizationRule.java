package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * gpu_memory_utilization as the user's start command asks it ({@code --gpu-memory-utilization 0.9},
 * inferred) against the value vLLM itself prints for the same server ({@code non-default args},
 * the engine config, "total_gpu_memory (X) x gpu_memory_utilization (u)", reported). vLLM's value
 * is the one it ran with, so it is the one used ({@link #used}); when the two differ, a run note
 * names both, with their lines: the command shown is then not the one that ran as written.
 * Servers are told apart within each log as {@link ServerStartsInLog#servers} does.
 */
public final class AskedUtilizationRule implements RunRule {

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        for (List<TaggedObservation> server : servers(ev)) {
            Set<String> user = ServerStartsInLog.userLines(server);
            TaggedObservation asked = null;
            TaggedObservation printed = null;
            for (TaggedObservation t : server) {
                if (t.quantity() == Quantity.MEMORY_UTILIZATION && t.o().value() != null) {
                    if (user.contains(where(t))) {
                        asked = t;
                    } else {
                        printed = t;
                    }
                }
            }
            if (asked != null && printed != null && Math.abs(asked.o().value() - printed.o().value()) > 1e-9) {
                run.note("WARNING: the start command at " + where(asked) + " asks gpu_memory_utilization " + asked.o().text()
                        + " (inferred: the user's setting), but vLLM prints " + printed.o().text() + " at " + where(printed)
                        + " (reported): " + printed.o().text() + " is used, as the value vLLM ran with; the command"
                        + " shown is not the one that started this server as written (edited later, or the setting"
                        + " overridden by a wrapper script or a config file)");
            }
        }
    }

    /**
     * The run's vLLM gpu_memory_utilization lines, without those of a start command in a server
     * whose log prints vLLM's own value: the lines the figure's readers pick from.
     */
    public static List<TaggedObservation> used(EvidenceSet ev) {
        List<TaggedObservation> out = new ArrayList<>();
        for (List<TaggedObservation> server : servers(ev)) {
            Set<String> user = ServerStartsInLog.userLines(server);
            List<TaggedObservation> lines = server.stream().filter(t -> t.quantity() == Quantity.MEMORY_UTILIZATION).toList();
            boolean printed = lines.stream().anyMatch(t -> !user.contains(where(t)));
            lines.stream().filter(t -> !printed || !user.contains(where(t))).forEach(out::add);
        }
        return out;
    }

    /** The vLLM observations of each server: per log, split at its servers' starts when it holds several. */
    private static List<List<TaggedObservation>> servers(EvidenceSet ev) {
        List<List<TaggedObservation>> out = new ArrayList<>();
        for (Map.Entry<String, List<TaggedObservation>> log : ev.vllmServers().byLog().entrySet()) {
            List<TaggedObservation> obs = log.getValue();
            List<Integer> starts = ev.vllmServers().servers(log.getKey());
            Map<Integer, List<TaggedObservation>> byServer = new LinkedHashMap<>();
            for (TaggedObservation t : obs) {
                int i = starts.isEmpty() ? 0 : ServerStartsInLog.startIndex(starts, t.o().line());
                byServer.computeIfAbsent(i, k -> new ArrayList<>()).add(t);
            }
            out.addAll(byServer.values());
        }
        return out;
    }

    private static String where(TaggedObservation t) {
        return t.file() + ":" + t.o().line();
    }
}

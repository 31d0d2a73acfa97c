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

/** Run notes: which log held several starts, which lines were set aside, which log holds several servers. */
public final class ServerStartsNotes implements RunRule {
    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        Map<String, List<TaggedObservation>> earlier = new LinkedHashMap<>();
        for (TaggedObservation t : ev.quantity(Quantity.EARLIER_SERVER_START)) {
            earlier.computeIfAbsent(t.file(), k -> new ArrayList<>()).add(t);
        }
        Map<String, List<TaggedObservation>> logs = ev.vllmServers().byLog();
        for (Map.Entry<String, List<TaggedObservation>> f : logs.entrySet()) {
            ServerStartsInLog.modelsSharingALine(f.getValue()).forEach((line, models) -> run.note("WARNING: "
                    + f.getKey() + ":" + line + " starts servers of " + models.size() + " different models on one line ("
                    + String.join(", ", models) + "): they are read as one start, so the figures after it are not told"
                    + " apart by server; put each start command on a line of its own"));
            List<Integer> servers = ev.vllmServers().servers(f.getKey());
            if (!servers.isEmpty()) {
                Map<Integer, String> labels = ServerStartsInLog.labelsOf(f.getValue(), servers);
                List<String> each = new ArrayList<>();
                servers.forEach(line -> each.add(labels.get(line) + " from line " + Math.max(line, 1)));
                boolean ranks = labels.values().stream().anyMatch(l -> l.contains(", DP rank "));
                String last = labels.get(servers.get(servers.size() - 1));
                run.note("WARNING: " + f.getKey() + " holds " + servers.size() + " servers of different "
                        + (ranks ? "models or DP ranks" : "models") + " ("
                        + String.join(", ", each) + "), not restarts of one: the findings treat each as its own"
                        + " instance; " + (ServerStartsInLog.differentModels(f.getValue(), servers)
                        ? "the deployment, the device type and the ledger lines take their figures from "
                                + last.replaceFirst(", DP rank \\d+$", "") + " only (from " + f.getKey() + ":"
                                + usedFrom(ev, f.getKey()) + "), so that no device's lines mix two servers; the others'"
                                + " memory is in none of its lines (a sample of the device shows it as other processes"
                                + " or in the residual)"
                        : "the ledger lines take each figure from the last server that prints it"));
            }
        }
        for (Map.Entry<String, List<TaggedObservation>> f : earlier.entrySet()) {
            List<String> where = new ArrayList<>();
            int figures = 0;
            for (TaggedObservation t : f.getValue()) {
                where.add(t.o().text().startsWith("figures before") ? "the top of the file" : "line " + t.o().line());
                figures += t.o().value().intValue();
            }
            if (!ev.vllmServers().servers(f.getKey()).isEmpty()) {
                run.note("WARNING: " + f.getKey() + " holds restarts (earlier starts at " + String.join(", ", where)
                        + "); only each server's last start is used: the " + figures + " figure(s) of the earlier"
                        + " starts belong to another run of that server and are left out");
                continue;
            }
            // the first line kept: the marker, or a setting printed for this start before it
            int last = ev.where(t -> t.file().equals(f.getKey()) && t.isVllm()
                            && t.quantity() != Quantity.EARLIER_SERVER_START)
                    .stream().mapToInt(t -> t.o().line()).min().orElse(0);
            run.note("WARNING: " + f.getKey() + " holds " + (where.size() + 1) + " server starts (earlier ones at "
                    + String.join(", ", where) + "); only the last start, from line " + last + ", is used: the "
                    + figures + " figure(s) printed before it belong to another run of the server and are left out");
        }
    }

    /** The line the server a log's figures are taken from starts at ({@link VllmServers#used}). */
    private static int usedFrom(EvidenceSet ev, String file) {
        return ev.vllmServers().used().stream().filter(u -> u.file().equals(file)).mapToInt(VllmServers.Used::fromLine)
                .findFirst().orElse(1);
    }
}

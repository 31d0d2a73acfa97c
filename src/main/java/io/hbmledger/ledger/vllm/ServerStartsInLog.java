package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A vLLM log that holds several server starts (logs appended across restarts, or pasted runs with
 * different settings): only the last start's figures describe the server that is running, so the
 * figures printed before it are set aside. Start markers come from the log reader
 * ({@code server_start}); markers with no figure between them (version, args, engine lines of one
 * start) are one start.
 */
public final class ServerStartsInLog {

    private ServerStartsInLog() {
    }

    /** Line of each start of one log file, after grouping; empty when the log shows none. */
    static List<Integer> starts(List<TaggedObservation> fileObs) {
        List<Integer> starts = new ArrayList<>();
        // a figure on a marker line ("non-default args: {... gpu_memory_utilization: 0.8}") is
        // part of that start, not a sign that a start already ran
        java.util.Set<Integer> markerLines = new java.util.HashSet<>();
        fileObs.stream().filter(t -> t.quantity() == Quantity.SERVER_START).forEach(t -> markerLines.add(t.o().line()));
        int lastStart = -1;
        boolean figureSince = false;
        // a setting printed after the last start's other figures and before the next marker is the
        // next start's: vllm-ascend #5917 pastes "实例2：... --gpu-memory-utilization 0.4", then
        // the second instance's log, whose first line (a new pid) is the marker
        int settingsFrom = -1;
        for (TaggedObservation t : fileObs) {
            if (t.quantity() == Quantity.EARLIER_SERVER_START) {
                continue;
            }
            if (t.quantity() == Quantity.SERVER_START) {
                if (lastStart < 0 || (figureSince && t.o().line() > lastStart)) {
                    int from = settingsFrom > lastStart && settingsFrom < t.o().line() ? settingsFrom : t.o().line();
                    starts.add(from);
                    lastStart = from;
                    figureSince = false;
                }
                settingsFrom = -1;
            } else if (markerLines.contains(t.o().line())) {
                continue;
            } else if (lastStart >= 0 && t.o().line() > lastStart) {
                figureSince = true;
                if (t.quantity() != Quantity.MEMORY_UTILIZATION) {
                    settingsFrom = -1;
                } else if (settingsFrom < 0) {
                    settingsFrom = t.o().line();
                }
            } else if (lastStart < 0) {
                figureSince = true; // figures before the first marker: that marker is a restart
                starts.add(0);
                lastStart = 0;
            }
        }
        if (starts.size() > 1 && commandOnly(fileObs, starts.get(starts.size() - 1))) {
            starts.remove(starts.size() - 1);
        }
        if (!starts.isEmpty() && starts.get(0) == 0 && starts.size() == 1) {
            return List.of();
        }
        return starts;
    }

    /** What a pasted start command or Python call gives: its settings, no figure of a run. */
    private static final java.util.Set<Quantity> START_SETTINGS = java.util.EnumSet.of(Quantity.SERVER_START,
            Quantity.MODEL, Quantity.TENSOR_PARALLEL_SIZE, Quantity.PIPELINE_PARALLEL_SIZE, Quantity.DATA_PARALLEL_SIZE,
            Quantity.MAX_MODEL_LEN, Quantity.ENFORCE_EAGER, Quantity.KV_CACHE_DTYPE_BYTES, Quantity.VISIBLE_DEVICES,
            Quantity.MEMORY_UTILIZATION);

    /**
     * Whether the last start is a command (vllm serve, python -m vllm, LLM(...)) with nothing of a
     * run after it. An issue that pastes the failing log and then "started with: vllm serve ..."
     * describes the same start; taking the command for a later, silent start would set the
     * failure aside and call the server ready with no evidence of that start at all.
     */
    private static boolean commandOnly(List<TaggedObservation> fileObs, int from) {
        boolean command = false;
        for (TaggedObservation t : fileObs) {
            if (t.o().line() < from || t.quantity() == Quantity.EARLIER_SERVER_START) {
                continue;
            }
            if (!START_SETTINGS.contains(t.quantity())) {
                return false;
            }
            if (t.quantity() == Quantity.SERVER_START) {
                String text = t.o().text() == null ? "" : t.o().text();
                command |= text.contains("vllm serve") || text.matches("(?s).*-m\\s+vllm.*") || text.equals("start call");
            }
        }
        return command;
    }

    /**
     * The observations without the vLLM figures printed before the last start of their log. Each
     * earlier start is kept as one {@code earlier_server_start} observation (value = figures set
     * aside), so the run can say what was left out.
     */
    public static List<TaggedObservation> lastStartOnly(List<TaggedObservation> all) {
        Map<String, List<Integer>> startsByLog = new LinkedHashMap<>();
        for (Map.Entry<String, List<TaggedObservation>> f : byLog(all).entrySet()) {
            List<Integer> s = starts(f.getValue());
            if (s.size() > 1) {
                startsByLog.put(f.getKey(), s);
            }
        }
        if (startsByLog.isEmpty()) {
            return all;
        }
        List<TaggedObservation> out = new ArrayList<>();
        Map<String, int[]> setAside = new LinkedHashMap<>();
        for (TaggedObservation t : all) {
            List<Integer> s = t.isVllm() ? startsByLog.get(t.file()) : null;
            int from = s == null ? Integer.MIN_VALUE : s.get(s.size() - 1);
            if (t.o().line() >= from) {
                out.add(t);
            } else if (t.quantity() != Quantity.SERVER_START) {
                setAside.computeIfAbsent(t.file(), k -> new int[s.size() - 1])[startIndex(s, t.o().line())]++;
            }
        }
        for (Map.Entry<String, List<Integer>> f : startsByLog.entrySet()) {
            List<Integer> s = f.getValue();
            int[] n = setAside.getOrDefault(f.getKey(), new int[s.size() - 1]);
            for (int i = 0; i < s.size() - 1; i++) {
                Observation o = Observation.value(Quantity.EARLIER_SERVER_START, n[i], Math.max(s.get(i), 1),
                        s.get(i) == 0 ? "figures before the first start marker" : "server start");
                out.add(new TaggedObservation(o, f.getKey(), EvidenceFormat.VLLM_LOG, null, null, null));
            }
        }
        return out;
    }

    private static int startIndex(List<Integer> starts, int line) {
        int i = 0;
        while (i + 1 < starts.size() && starts.get(i + 1) <= line) {
            i++;
        }
        return Math.min(i, starts.size() - 2);
    }

    static Map<String, List<TaggedObservation>> byLog(List<TaggedObservation> all) {
        Map<String, List<TaggedObservation>> byFile = new LinkedHashMap<>();
        for (TaggedObservation t : all) {
            if (t.isVllm()) {
                byFile.computeIfAbsent(t.file(), k -> new ArrayList<>()).add(t);
            }
        }
        return byFile;
    }

    /** Run notes: which log held several starts, which lines were set aside. */
    public static final class Rule implements RunRule {
        @Override
        public void apply(EvidenceSet ev, RunDraft run) {
            Map<String, List<TaggedObservation>> earlier = new LinkedHashMap<>();
            for (TaggedObservation t : ev.quantity(Quantity.EARLIER_SERVER_START)) {
                earlier.computeIfAbsent(t.file(), k -> new ArrayList<>()).add(t);
            }
            for (Map.Entry<String, List<TaggedObservation>> f : earlier.entrySet()) {
                List<String> where = new ArrayList<>();
                int figures = 0;
                for (TaggedObservation t : f.getValue()) {
                    where.add(t.o().text().startsWith("figures before") ? "the top of the file" : "line " + t.o().line());
                    figures += t.o().value().intValue();
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
    }
}

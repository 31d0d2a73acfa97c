package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A vLLM log that holds several server starts (logs appended across restarts, or pasted runs with
 * different settings): only a server's last start describes it as it runs, so the figures of its
 * earlier starts are set aside. Starts of different models are different servers, and keep theirs. Start markers come from the log reader
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
        // two start commands pasted one after the other have no figure between them: a marker that
        // names another model than the start's is a new start all the same (vllm #10533)
        ModelName model = null;
        int commandFrom = -1;
        for (TaggedObservation t : fileObs) {
            if (t.quantity() == Quantity.EARLIER_SERVER_START || t.quantity() == Quantity.DEVICE_TYPE) {
                // the platform line ("Automatically detected platform cuda.") comes before the start's
                // first marker and is no figure of a run: it neither starts nor ends a start
                continue;
            }
            if (t.quantity() == Quantity.SERVER_START) {
                if (lastStart < 0 || (figureSince && t.o().line() > lastStart)) {
                    int from = settingsFrom > lastStart && settingsFrom < t.o().line() ? settingsFrom : t.o().line();
                    starts.add(from);
                    lastStart = from;
                    figureSince = false;
                    model = null;
                }
                if (!"start command".equals(t.o().text())) {
                    commandFrom = t.o().line(); // not a continued line: where a command or record begins
                }
                settingsFrom = -1;
            } else if (t.quantity() == Quantity.MODEL && t.o().text() != null && lastStart >= 0 && t.o().line() >= lastStart) {
                ModelName named = ModelName.of(t.o().text());
                // starts are told apart by line: two commands on one line of prose ("the first with
                // `vllm serve A`, the second with `vllm serve B`") cannot be split, so they stay one
                // start rather than an empty one and a second holding both
                if (model != null && !model.same(named) && t.o().line() > lastStart) {
                    int from = commandFrom > lastStart ? commandFrom : t.o().line();
                    starts.add(from);
                    lastStart = from;
                    figureSince = false;
                    settingsFrom = -1;
                }
                model = named;
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

    private static final java.util.regex.Pattern COMMAND = java.util.regex.Pattern.compile("(?i)vllm\\s+serve|-m\\s+vllm");

    /**
     * Whether a {@code server_start} marker is a line of the user's own start (a shell command, its
     * continued lines or an export before it, a Python {@code LLM(...)} call) rather than a line vLLM
     * printed ("vLLM API server version", "non-default args:", "Initializing a V1 LLM engine", a
     * worker label): the settings on it are what the user asked, not what the engine reports.
     */
    public static boolean userStart(TaggedObservation marker) {
        String text = marker.o().text() == null ? "" : marker.o().text();
        return marker.quantity() == Quantity.SERVER_START
                && (text.equals("start command") || text.equals("start call") || COMMAND.matcher(text).find());
    }

    /**
     * The lines ({@code file:line}) of the user's own start commands and calls among the
     * observations ({@link #userStart}): a setting read there was asked, not printed by vLLM.
     */
    public static java.util.Set<String> userLines(List<TaggedObservation> obs) {
        java.util.Set<String> lines = new java.util.HashSet<>();
        obs.stream().filter(ServerStartsInLog::userStart).forEach(t -> lines.add(t.file() + ":" + t.o().line()));
        return lines;
    }

    /** What a pasted start command or Python call gives: its settings, no figure of a run. */
    private static final java.util.Set<Quantity> START_SETTINGS = java.util.EnumSet.of(Quantity.SERVER_START,
            Quantity.MODEL, Quantity.TENSOR_PARALLEL_SIZE, Quantity.PIPELINE_PARALLEL_SIZE, Quantity.DATA_PARALLEL_SIZE,
            Quantity.MAX_MODEL_LEN, Quantity.ENFORCE_EAGER, Quantity.KV_CACHE_DTYPE_BYTES, Quantity.VISIBLE_DEVICES,
            Quantity.MEMORY_UTILIZATION, Quantity.DATA_PARALLEL_RANK);

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
     * The observations without the vLLM figures of the restarts a log holds: a start followed by a
     * later start of the same server (the same model, or a start whose model is not printed) is set
     * aside, so each server keeps its last start. A start of another model is another server (vllm
     * #10533: a 72B at 0.75 and a 14B at 0.20 on one A100, pasted one after the other) and keeps its
     * figures. Each start set aside is kept as one {@code earlier_server_start} observation (value =
     * figures set aside), so the run can say what was left out.
     */
    public static List<TaggedObservation> lastStartOnly(List<TaggedObservation> all) {
        Map<String, List<Integer>> startsByLog = new LinkedHashMap<>();
        Map<String, boolean[]> asideByLog = new LinkedHashMap<>();
        for (Map.Entry<String, List<TaggedObservation>> f : byLog(all).entrySet()) {
            List<Integer> s = starts(f.getValue());
            boolean[] aside = restarts(f.getValue(), s);
            boolean any = false;
            for (boolean a : aside) {
                any |= a;
            }
            if (any) {
                startsByLog.put(f.getKey(), s);
                asideByLog.put(f.getKey(), aside);
            }
        }
        if (startsByLog.isEmpty()) {
            return all;
        }
        List<TaggedObservation> out = new ArrayList<>();
        Map<String, int[]> setAside = new LinkedHashMap<>();
        for (TaggedObservation t : all) {
            List<Integer> s = t.isVllm() ? startsByLog.get(t.file()) : null;
            int group = s == null ? -1 : startIndex(s, t.o().line());
            if (group < 0 || !asideByLog.get(t.file())[group]) {
                out.add(t);
            } else if (t.quantity() != Quantity.SERVER_START) {
                setAside.computeIfAbsent(t.file(), k -> new int[s.size()])[group]++;
            }
        }
        for (Map.Entry<String, List<Integer>> f : startsByLog.entrySet()) {
            List<Integer> s = f.getValue();
            boolean[] aside = asideByLog.get(f.getKey());
            int[] n = setAside.getOrDefault(f.getKey(), new int[s.size()]);
            for (int i = 0; i < s.size(); i++) {
                if (aside[i]) {
                    Observation o = Observation.value(Quantity.EARLIER_SERVER_START, n[i], Math.max(s.get(i), 1),
                            s.get(i) == 0 ? "figures before the first start marker" : "server start");
                    out.add(new TaggedObservation(o, f.getKey(), EvidenceFormat.VLLM_LOG, null, null, null));
                }
            }
        }
        return out;
    }

    /**
     * Which starts are restarts: a later start is of the same server. Servers are told apart by
     * the model each start names ({@code vllm serve M}, {@code --model M}, the args or engine
     * config; {@link ModelName}). A start that names none may be any server's, so it is a restart of the next one, and
     * the next one a restart of it.
     */
    private static boolean[] restarts(List<TaggedObservation> fileObs, List<Integer> starts) {
        boolean[] aside = new boolean[starts.size()];
        if (starts.size() < 2) {
            return aside;
        }
        ModelName[] models = modelsOf(fileObs, starts);
        Integer[] dpRanks = dpRanksOf(fileObs, starts);
        for (int i = 0; i < starts.size() - 1; i++) {
            for (int j = i + 1; j < starts.size() && !aside[i]; j++) {
                // processes of different DP ranks (VLLM_DP_RANK, --data-parallel-rank) run side by side
                boolean sameRank = dpRanks[i] == null || dpRanks[j] == null || dpRanks[i].equals(dpRanks[j]);
                aside[i] = sameRank && (models[i] == null || models[j] == null || models[i].same(models[j]));
            }
        }
        return aside;
    }

    /** The model each start names first, null where none. */
    static ModelName[] modelsOf(List<TaggedObservation> fileObs, List<Integer> starts) {
        return firstOfEach(fileObs, starts, Quantity.MODEL, o -> o.text() == null ? null : ModelName.of(o.text()))
                .toArray(ModelName[]::new);
    }

    /** The first value of {@code q} among each start's lines ({@code value} null: none), null where none. */
    private static <T> List<T> firstOfEach(List<TaggedObservation> fileObs, List<Integer> starts, Quantity q,
                                           java.util.function.Function<Observation, T> value) {
        List<T> first = new ArrayList<>(java.util.Collections.nCopies(starts.size(), (T) null));
        for (TaggedObservation t : fileObs) {
            T v = t.quantity() == q && t.o().line() >= starts.get(0) ? value.apply(t.o()) : null;
            int i = v == null ? -1 : startIndex(starts, t.o().line());
            if (v != null && first.get(i) == null) {
                first.set(i, v);
            }
        }
        return first;
    }

    /** Whether a log's servers name different models (not only different DP ranks of one). */
    static boolean differentModels(List<TaggedObservation> fileObs, List<Integer> servers) {
        ModelName[] models = servers.isEmpty() ? new ModelName[0] : modelsOf(fileObs, servers);
        for (ModelName m : models) {
            if (m != null && models[models.length - 1] != null && !m.same(models[models.length - 1])) {
                return true;
            }
        }
        return false;
    }

    /** The DP rank each start's process names ({@code data_parallel_rank}), null where none. */
    private static Integer[] dpRanksOf(List<TaggedObservation> fileObs, List<Integer> starts) {
        return firstOfEach(fileObs, starts, Quantity.DATA_PARALLEL_RANK,
                o -> o.value() == null ? null : (Integer) (int) Math.round(o.value())).toArray(Integer[]::new);
    }


    /**
     * The line each server of a log starts at, when the log holds several servers (starts of
     * different models or DP ranks, none a restart of another; {@link #lastStartOnly} has set the restarts
     * aside), else an empty list.
     *
     * @param fileObs the observations of one vLLM log, restarts already set aside
     */
    public static List<Integer> servers(List<TaggedObservation> fileObs) {
        List<Integer> s = starts(fileObs);
        return s.size() > 1 ? s : List.of();
    }

    /**
     * Lines of one log that name two or more different models (two start commands in one line of
     * prose): the models as written, by line. Starts are told apart by line, so such a line is one
     * start ({@link #starts}), and the run says so.
     */
    public static Map<Integer, List<String>> modelsSharingALine(List<TaggedObservation> fileObs) {
        Map<Integer, List<String>> byLine = new LinkedHashMap<>();
        for (TaggedObservation t : fileObs) {
            if (t.quantity() == Quantity.MODEL && t.o().text() != null) {
                List<String> named = byLine.computeIfAbsent(t.o().line(), k -> new ArrayList<>());
                ModelName m = ModelName.of(t.o().text());
                if (named.stream().noneMatch(n -> ModelName.of(n).same(m))) {
                    named.add(t.o().text());
                }
            }
        }
        byLine.values().removeIf(named -> named.size() < 2);
        return byLine;
    }

    /** Which start's part of the log a line is in: 0 before the second start, and so on. */
    public static int startIndex(List<Integer> starts, int line) {
        int i = 0;
        while (i + 1 < starts.size() && starts.get(i + 1) <= line) {
            i++;
        }
        return i;
    }

    /** The vLLM observations of a run, by log file, in file order. */
    public static Map<String, List<TaggedObservation>> byLog(List<TaggedObservation> all) {
        Map<String, List<TaggedObservation>> byFile = new LinkedHashMap<>();
        for (TaggedObservation t : all) {
            if (t.isVllm()) {
                byFile.computeIfAbsent(t.file(), k -> new ArrayList<>()).add(t);
            }
        }
        return byFile;
    }

    /**
     * How each server of a log is named, by its start line: the model as written (or "a model not
     * printed") and, when its process names one, its DP rank ("M, DP rank 1").
     */
    public static Map<Integer, String> labelsOf(List<TaggedObservation> fileObs, List<Integer> servers) {
        Map<Integer, String> models = new LinkedHashMap<>();
        for (TaggedObservation t : fileObs) {
            if (t.quantity() == Quantity.MODEL && t.o().text() != null && !servers.isEmpty() && t.o().line() >= servers.get(0)) {
                models.putIfAbsent(servers.get(startIndex(servers, t.o().line())), t.o().text());
            }
        }
        Integer[] ranks = servers.isEmpty() ? new Integer[0] : dpRanksOf(fileObs, servers);
        Map<Integer, String> out = new LinkedHashMap<>();
        for (int i = 0; i < servers.size(); i++) {
            out.put(servers.get(i), models.getOrDefault(servers.get(i), "a model not printed")
                    + (ranks[i] == null ? "" : ", DP rank " + ranks[i]));
        }
        return out;
    }
}

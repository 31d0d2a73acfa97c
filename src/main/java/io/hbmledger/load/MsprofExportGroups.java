package io.hbmledger.load;

import io.hbmledger.evidence.msprof.MsprofExport;
import io.hbmledger.evidence.msprof.MsprofExportWalker;
import io.hbmledger.evidence.msprof.MsprofInput;
import io.hbmledger.evidence.msprof.MsprofTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sorts a run's msprof entries into profiling outputs: an export directory gives one group per
 * export found under it; a file inside a {@code PROF_*} / {@code *_ascend_pt} folder joins that
 * export (unless the export reads the same table from a preferred file); other files are grouped
 * by their folder. Each file is read once, however many entries name it.
 */
final class MsprofExportGroups {

    private static final Pattern DEVICE_DIR = Pattern.compile("device_(\\d+)");

    /** One profiling output and the files read for it. */
    record Group(String name, String kind, Map<String, Integer> rankIds, List<MsprofInput> inputs) {
    }

    private final Map<String, Group> groups = new LinkedHashMap<>();
    private final Map<Path, List<MsprofExport>> walked = new HashMap<>();
    private final Set<Path> seen = new LinkedHashSet<>();
    /** For each group of loose files: its files by profiling session ({@link LooseSession}), in the order named. */
    private final Map<String, Map<String, List<MsprofInput>>> sessions = new HashMap<>();
    private final Path baseDir;
    private final List<String> notes;

    /**
     * @param baseDir the run directory (stripped from group names, and no file may resolve
     *     outside it), or null
     * @param notes where files left out are said
     */
    MsprofExportGroups(Path baseDir, List<String> notes) {
        this.baseDir = baseDir;
        this.notes = notes;
    }

    /** Adds one evidence entry: an export directory or one msprof file. */
    void add(MsprofItem it) throws IOException {
        Path p = it.path();
        if (Files.isDirectory(p)) {
            List<MsprofExport> exports = MsprofExportWalker.find(p);
            if (exports.isEmpty()) {
                group(it.sourceName(), kindOf(p), Map.of());
            }
            for (MsprofExport x : exports) {
                String rel = p.relativize(x.root()).toString();
                Group g = group(rel.isEmpty() ? it.sourceName() : it.sourceName() + "/" + rel, x.kind(), x.rankIds());
                for (MsprofInput in : x.inputs()) {
                    if (seen.add(in.path().toAbsolutePath().normalize())) {
                        g.inputs().add(in);
                    }
                }
            }
            return;
        }
        if (!seen.add(p.toAbsolutePath().normalize())) {
            return;
        }
        Path root = exportRoot(p);
        if (root != null) {
            List<MsprofExport> exports = walked.computeIfAbsent(root, this::walk);
            Optional<MsprofExport> x = exports.stream().filter(e -> e.root().equals(root)).findFirst();
            Optional<MsprofInput> mine = x.flatMap(e -> e.inputs().stream().filter(in -> same(in.path(), p)).findFirst());
            String name = baseDir != null && root.startsWith(baseDir) ? baseDir.relativize(root).toString() : root.toString();
            if (mine.isPresent()) {
                group(name, x.get().kind(), x.get().rankIds()).inputs().add(mine.get());
                return;
            }
            if (x.isPresent() && x.get().skipped().stream().anyMatch(s -> s.contains(p.getFileName().toString()))) {
                notes.add(it.sourceName() + ": not read, the same table of " + name + " is read from a preferred file");
                return;
            }
        }
        Path parent = p.toAbsolutePath().getParent();
        String name = it.sourceName().contains("/") ? it.sourceName().substring(0, it.sourceName().lastIndexOf('/'))
                : parent == null ? "." : parent.getFileName().toString();
        MsprofInput in = new MsprofInput(p, tableOf(p), p.toString(), 0, folderDevice(p));
        Group g = group("files in " + name, "files", parent == null ? Map.of() : MsprofExportWalker.rankIds(parent.getFileName().toString()));
        g.inputs().add(in);
        sessions.computeIfAbsent(g.name(), k -> new LinkedHashMap<>())
                .computeIfAbsent(LooseSession.of(p.getFileName().toString()), k -> new ArrayList<>()).add(in);
    }

    /**
     * The groups, in the order first named.
     *
     * @throws IOException when a file resolves through a symbolic link outside the run directory
     */
    List<Group> groups() throws IOException {
        List<Group> out = new ArrayList<>();
        for (Group g : groups.values()) {
            out.addAll(apart(g));
        }
        if (baseDir != null) {
            Path real = baseDir.toRealPath();
            for (Group g : out) {
                for (MsprofInput in : g.inputs()) {
                    if (!in.path().toRealPath().startsWith(real)) {
                        throw new IOException(in.path() + " resolves through a symbolic link to " + in.path().toRealPath()
                                + ", outside the run directory " + real + "; copy the export into the run directory");
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * Loose files of one folder that name more than one profiling session ({@link LooseSession}):
     * one group per session, said in a note, so that one device's figures are not the maxima of
     * several sessions; the group itself otherwise.
     */
    private List<Group> apart(Group g) {
        Map<String, List<MsprofInput>> bySession = sessions.getOrDefault(g.name(), Map.of());
        if (bySession.size() < 2) {
            tableTwice(g);
            return List.of(g);
        }
        List<Group> out = new ArrayList<>();
        List<String> said = new ArrayList<>();
        bySession.forEach((session, inputs) -> {
            String shown = session.isEmpty() ? "no prefix" : session;
            out.add(new Group(g.name() + " (" + shown + ")", g.kind(), g.rankIds(), inputs));
            said.add(shown + ": " + inputs.stream().map(in -> in.path().getFileName().toString()).toList());
        });
        notes.add(g.name() + ": the files hold " + bySession.size() + " profiling sessions, told apart by the start of"
                + " their names, and are read as " + bySession.size() + " exports, not one (" + String.join("; ", said)
                + "): a device's msprof figures come from one of them (check msprof_device_ids names the others); keep"
                + " each session in a folder of its own, or its PROF_* / *_ascend_pt folder, to say which is which");
        return out;
    }

    /**
     * One table in two files of one folder that are not slices of one
     * ({@code npu_mem_20250109102030.csv} beside {@code npu_mem_20250110093000.csv}, as msprof
     * names them): two exports, most likely of two sessions, which the names cannot tell apart;
     * said, as they are read as one. Files of one table in device_N folders are each device's.
     */
    private void tableTwice(Group g) {
        Map<String, Set<String>> stems = new LinkedHashMap<>();
        for (MsprofInput in : g.inputs()) {
            if (in.table() != null) {
                String stem = in.path().getFileName().toString().replaceFirst("\\.csv$", "").replaceFirst("_slice_\\d+", "");
                stems.computeIfAbsent(in.table().csvStem() + "\u0000" + in.path().toAbsolutePath().getParent(),
                        k -> new LinkedHashSet<>()).add(stem);
            }
        }
        stems.forEach((key, names) -> {
            if (names.size() > 1) {
                notes.add(g.name() + ": " + key.substring(0, key.indexOf('\u0000')) + " is in " + names.size() + " files"
                        + " that are not slices of one (" + String.join(", ", names) + "): exports of as many profiling"
                        + " sessions? they are read as one export, their maxima mixed; keep each session in a folder of its"
                        + " own, or its PROF_* folder");
            }
        });
    }

    private Group group(String name, String kind, Map<String, Integer> rankIds) {
        return groups.computeIfAbsent(name, k -> new Group(k, kind, rankIds, new ArrayList<>()));
    }

    private List<MsprofExport> walk(Path root) {
        try {
            return MsprofExportWalker.find(root);
        } catch (IOException e) {
            notes.add(root + ": cannot list: " + e.getMessage());
            return List.of();
        }
    }

    /** The table a CSV file's name stands for (for planning only; the reader goes by the header), or null. */
    private static MsprofTable tableOf(Path p) {
        String n = p.getFileName().toString();
        for (MsprofTable t : MsprofTable.values()) {
            if (n.endsWith(".csv") && (n.equals(t.csvStem() + ".csv") || n.startsWith(t.csvStem() + "_"))) {
                return t;
            }
        }
        return null;
    }

    private static String kindOf(Path p) {
        return p.getFileName() != null && p.getFileName().toString().endsWith("_ascend_pt") ? "torch_npu" : "msprof";
    }

    private static boolean same(Path a, Path b) {
        return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }

    /** The nearest PROF_* / *_ascend_pt folder above a file, not above the run directory. */
    private Path exportRoot(Path file) {
        for (Path d = file.getParent(); d != null; d = d.getParent()) {
            if (baseDir != null && same(d, baseDir)) {
                return null;
            }
            String n = d.getFileName() == null ? "" : d.getFileName().toString();
            if (n.startsWith("PROF_") || n.endsWith("_ascend_pt")) {
                return d;
            }
        }
        return null;
    }

    private static Integer folderDevice(Path file) {
        for (Path d = file.getParent(); d != null; d = d.getParent()) {
            Matcher m = DEVICE_DIR.matcher(d.getFileName() == null ? "" : d.getFileName().toString());
            if (m.matches()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return null;
    }
}

package io.hbmledger.evidence.msprof;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the memory files of msprof and torch_npu profiler outputs under a directory.
 *
 * <p>Layouts followed (CANN profiling guide, "performance data file reference"; torch_npu
 * profiler output): msprof {@code PROF_*}/{@code mindstudio_profiler_output/*.csv} (summaries
 * of all devices, preferred), older {@code PROF_*}/{@code device_N/summary/*.csv}, and
 * {@code msprof_*.db}; torch_npu {@code *_ascend_pt/ASCEND_PROFILER_OUTPUT/*.csv} and
 * {@code ascend_pytorch_profiler_*.db}. One table of one export is read from one place only,
 * in that order of preference (CSV before SQLite), because the same samples are in all of
 * them; the others are listed as skipped. Files of one table cut into {@code _slice_N} are
 * grouped to be joined.
 */
public final class MsprofExportWalker {

    /** {@code npu_mem_slice_0_20250109.csv} (msprof's naming) or {@code npu_mem_20250109_slice_0.csv}. */
    private static final Pattern SLICE = Pattern.compile("^(.*)_slice_(\\d+)(_[^_]*)?$");
    private static final Pattern DEVICE_DIR = Pattern.compile("device_(\\d+)");
    private static final Pattern RANK = Pattern.compile("(?i)(?:^|[_\\-.])(rank|dp|tp|ep|pp)[_\\-]?(\\d+)(?=$|[_\\-.])");

    private MsprofExportWalker() {
    }

    /**
     * Walks {@code root} (at most 8 levels) and groups what it finds by export folder.
     *
     * @throws IOException when the tree cannot be listed
     */
    public static List<MsprofExport> find(Path root) throws IOException {
        Map<Path, List<Path>> byExport = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root, 8)) {
            files.filter(Files::isRegularFile).filter(p -> kindOf(p) != null).sorted().forEach(p -> {
                byExport.computeIfAbsent(exportRoot(root, p), k -> new ArrayList<>()).add(p);
            });
        }
        List<MsprofExport> out = new ArrayList<>();
        for (Map.Entry<Path, List<Path>> e : byExport.entrySet()) {
            out.add(export(e.getKey(), e.getValue()));
        }
        return out;
    }

    /** Ids in a torch_npu / msprof folder name: {@code dp0_tp1_rank1_..._ascend_pt} gives dp=0, tp=1, rank=1. */
    public static Map<String, Integer> rankIds(String folderName) {
        Map<String, Integer> ids = new LinkedHashMap<>();
        Matcher m = RANK.matcher(folderName);
        while (m.find()) {
            ids.putIfAbsent(m.group(1).toLowerCase(Locale.ROOT), Integer.parseInt(m.group(2)));
        }
        return ids;
    }

    /** The {@link MsprofTable} name a CSV file name stands for, {@code "db"} for a SQLite export, or null. */
    static String kindOf(Path p) {
        String name = p.getFileName().toString();
        if (name.endsWith(".db")) {
            return name.startsWith("msprof_") || name.startsWith("ascend_pytorch_profiler") ? "db" : null;
        }
        if (!name.endsWith(".csv")) {
            return null;
        }
        for (MsprofTable t : MsprofTable.values()) {
            if (name.equals(t.csvStem() + ".csv") || name.startsWith(t.csvStem() + "_")) {
                return t.name();
            }
        }
        return null;
    }

    private static Path exportRoot(Path walkRoot, Path file) {
        for (Path d = file.getParent(); d != null && d.startsWith(walkRoot); d = d.getParent()) {
            String n = d.getFileName() == null ? "" : d.getFileName().toString();
            if (n.startsWith("PROF_") || n.endsWith("_ascend_pt")) {
                return d;
            }
        }
        return file.getParent();
    }

    /** Lower is preferred. */
    private static int placeRank(Path exportRoot, Path file) {
        String rel = exportRoot.relativize(file).toString().replace('\\', '/');
        if (rel.contains("mindstudio_profiler_output/") || rel.contains("ASCEND_PROFILER_OUTPUT/")) {
            return file.toString().endsWith(".db") ? 2 : 0;
        }
        if (file.toString().endsWith(".db")) {
            return 2;
        }
        return 1;
    }

    private static MsprofExport export(Path root, List<Path> files) {
        String name = root.getFileName() == null ? root.toString() : root.getFileName().toString();
        String kind = name.endsWith("_ascend_pt") ? "torch_npu" : "msprof";
        // table -> best place rank seen
        Map<String, Integer> best = new LinkedHashMap<>();
        for (Path f : files) {
            String k = kindOf(f);
            if (!k.equals("db")) {
                best.merge(k, placeRank(root, f), Math::min);
            }
        }
        List<MsprofInput> inputs = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        files.sort(Comparator.comparing(Path::toString));
        for (Path f : files) {
            String k = kindOf(f);
            Integer dev = folderDevice(root, f);
            String stem = f.getFileName().toString().replaceFirst("\\.(csv|db)$", "");
            int slice = 0;
            Matcher m = SLICE.matcher(stem);
            if (m.matches()) {
                stem = m.group(1) + (m.group(3) == null ? "" : m.group(3));
                slice = Integer.parseInt(m.group(2));
            }
            String group = f.getParent().resolve(stem).toString();
            if (k.equals("db")) {
                boolean allCsv = !best.isEmpty();
                if (allCsv) {
                    skipped.add(f + ": SQLite export skipped, the CSV summaries beside it hold the same samples ("
                            + String.join(", ", best.keySet()).toLowerCase(Locale.ROOT) + ")");
                    continue;
                }
                inputs.add(new MsprofInput(f, null, group, slice, dev));
                continue;
            }
            if (placeRank(root, f) > best.get(k)) {
                skipped.add(f + ": " + k.toLowerCase(Locale.ROOT)
                        + " is also in mindstudio_profiler_output / ASCEND_PROFILER_OUTPUT, read there");
                continue;
            }
            inputs.add(new MsprofInput(f, MsprofTable.valueOf(k), group, slice, dev));
        }
        inputs.sort(Comparator.comparing(MsprofInput::sliceGroup).thenComparingInt(MsprofInput::slice));
        return new MsprofExport(root, kind, rankIds(name), inputs, skipped);
    }

    private static Integer folderDevice(Path root, Path file) {
        for (Path d = file.getParent(); d != null && d.startsWith(root); d = d.getParent()) {
            Matcher m = DEVICE_DIR.matcher(d.getFileName() == null ? "" : d.getFileName().toString());
            if (m.matches()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return null;
    }
}

package io.hbmledger.cli;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.msprof.MsprofAnalyzer;
import io.hbmledger.evidence.msprof.MsprofExport;
import io.hbmledger.evidence.msprof.MsprofExportWalker;
import io.hbmledger.evidence.msprof.MsprofFiles;
import io.hbmledger.evidence.msprof.MsprofInput;
import io.hbmledger.evidence.msprof.MsprofPass;
import io.hbmledger.evidence.msprof.MsprofQuantity;
import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.evidence.msprof.MsprofTable;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.run.RunInstants;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
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
 * The I/O edge between analyze and the msprof readers: recognises msprof exports among a run's
 * evidence (an export directory such as {@code PROF_*}, {@code *_ascend_pt},
 * {@code mindstudio_profiler_output}, or one of their CSV / SQLite files), reads each export
 * with {@link MsprofAnalyzer}: npu_mem first, for each device's peak instant, then every table
 * at the run's instants and those peaks (so every series' value at its device's peak is
 * known), and hands the ledger
 * {@link MsprofEvidence}: summaries only.
 */
final class MsprofLoader {

    private static final Pattern DEVICE_DIR = Pattern.compile("device_(\\d+)");

    private MsprofLoader() {
    }

    /** One evidence entry that is msprof data. */
    record Item(Path path, String sourceName) {
    }

    /** The evidence format to record for an msprof entry, or empty when the path is not msprof data. */
    static Optional<EvidenceFormat> format(Path p) throws IOException {
        if (Files.isDirectory(p)) {
            String n = p.getFileName() == null ? "" : p.getFileName().toString();
            if (n.startsWith("PROF_") || n.endsWith("_ascend_pt") || n.equals("mindstudio_profiler_output")
                    || n.equals("ASCEND_PROFILER_OUTPUT") || !MsprofExportWalker.find(p).isEmpty()) {
                return Optional.of(EvidenceFormat.MSPROF_EXPORT);
            }
            return Optional.empty();
        }
        if (!Files.isRegularFile(p)) {
            return Optional.empty();
        }
        return MsprofFiles.detect(FileHead.of(p).head());
    }

    /** True when a directory is an msprof export rather than a run directory. */
    static boolean isExportDir(Path p) throws IOException {
        return Files.isDirectory(p) && !Files.exists(p.resolve("run.json")) && format(p).isPresent();
    }

    /**
     * Parses the run's instants: ISO-8601 with an offset (run.json {@code moments}) or an
     * {@code Instant} in UTC; a bad one becomes a warning.
     */
    static Map<String, Long> instants(Map<String, String> iso, List<String> warnings, String where) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : iso.entrySet()) {
            Optional<Long> us = epochUs(e.getValue());
            if (us.isPresent()) {
                out.put(e.getKey(), us.get());
            } else {
                warnings.add(where + " " + e.getKey() + " = \"" + e.getValue()
                        + "\" is not " + RunInstants.FORMAT + "; not used");
            }
        }
        return out;
    }

    static Optional<Long> epochUs(String iso) {
        return RunInstants.epochUs(iso);
    }

    /**
     * Reads the msprof entries of a run.
     *
     * @param items the entries, in run order
     * @param momentsUs the run's instants by name
     * @param readyFrom where the ready instant came from, for the report
     * @param readyHow how this kind of input gives the ready instant, for lines without one
     * @param baseDir the run directory (stripped from shown file names), or null
     * @param warnings earlier warnings (bad instants) to carry into the report
     */
    static MsprofEvidence load(List<Item> items, Map<String, Long> momentsUs, String readyFrom, String readyHow,
                               Path baseDir, List<String> warnings) throws IOException {
        Map<String, Group> groups = new LinkedHashMap<>();
        Map<Path, List<MsprofExport>> walked = new HashMap<>();
        Set<Path> seen = new LinkedHashSet<>();
        List<String> notes = new ArrayList<>(warnings);
        for (Item it : items) {
            Path p = it.path();
            if (Files.isDirectory(p)) {
                List<MsprofExport> exports = MsprofExportWalker.find(p);
                if (exports.isEmpty()) {
                    groups.computeIfAbsent(it.sourceName(), k -> new Group(k, kindOf(p), Map.of()));
                }
                for (MsprofExport x : exports) {
                    String rel = p.relativize(x.root()).toString();
                    String name = rel.isEmpty() ? it.sourceName() : it.sourceName() + "/" + rel;
                    Group g = groups.computeIfAbsent(name, k -> new Group(k, x.kind(), x.rankIds()));
                    for (MsprofInput in : x.inputs()) {
                        if (seen.add(in.path().toAbsolutePath().normalize())) {
                            g.inputs.add(in);
                        }
                    }
                }
                continue;
            }
            if (!seen.add(p.toAbsolutePath().normalize())) {
                continue;
            }
            Path root = exportRoot(p, baseDir);
            if (root != null) {
                List<MsprofExport> exports = walked.computeIfAbsent(root, r -> {
                    try {
                        return MsprofExportWalker.find(r);
                    } catch (IOException e) {
                        notes.add(r + ": cannot list: " + e.getMessage());
                        return List.of();
                    }
                });
                Optional<MsprofExport> x = exports.stream().filter(e -> e.root().equals(root)).findFirst();
                Optional<MsprofInput> mine = x.flatMap(e -> e.inputs().stream().filter(in -> same(in.path(), p)).findFirst());
                String name = baseDir != null && root.startsWith(baseDir) ? baseDir.relativize(root).toString() : root.toString();
                if (mine.isPresent()) {
                    groups.computeIfAbsent(name, k -> new Group(k, x.get().kind(), x.get().rankIds())).inputs.add(mine.get());
                    continue;
                }
                if (x.isPresent() && x.get().skipped().stream().anyMatch(s -> s.contains(p.getFileName().toString()))) {
                    notes.add(it.sourceName() + ": not read, the same table of " + name + " is read from a preferred file");
                    continue;
                }
            }
            Path parent = p.toAbsolutePath().getParent();
            String name = it.sourceName().contains("/") ? it.sourceName().substring(0, it.sourceName().lastIndexOf('/'))
                    : parent == null ? "." : parent.getFileName().toString();
            Group g = groups.computeIfAbsent("files in " + name, k -> new Group(k, "files",
                    parent == null ? Map.of() : MsprofExportWalker.rankIds(parent.getFileName().toString())));
            g.inputs.add(new MsprofInput(p, tableOf(p), p.toString(), 0, folderDevice(p)));
        }
        if (baseDir != null) {
            Path real = baseDir.toRealPath();
            for (Group g : groups.values()) {
                for (MsprofInput in : g.inputs) {
                    if (!in.path().toRealPath().startsWith(real)) {
                        throw new IOException(in.path() + " resolves through a symbolic link to " + in.path().toRealPath()
                                + ", outside the run directory " + real + "; copy the export into the run directory");
                    }
                }
            }
        }
        List<MsprofEvidence.Export> exports = new ArrayList<>();
        for (Group g : groups.values()) {
            exports.add(new MsprofEvidence.Export(g.name, g.kind, g.rankIds, read(g.inputs, momentsUs)));
        }
        return new MsprofEvidence(exports, momentsUs, readyFrom, readyHow, baseDir == null ? null : baseDir.toString(), notes);
    }

    /**
     * Reads one export so that every series has a value at the run's instants and at its
     * device's peaks (the whole run's, and the one at or after ready: every series also keeps
     * its maximum from ready on). Pass 1 reads npu_mem alone (a few percent of an export: two rows per device
     * and sample, against ~75 for npu_module_mem) to find each device's peak instant; pass 2
     * reads every table at the run's instants plus those peaks, so npu_module_mem (HCCL,
     * RUNTIME, APP, ...) is known at the peak too, and the big files (npu_module_mem, and the
     * event logs memory_record and operator_memory, which in the corpus's torch_npu export are
     * larger than npu_module_mem) are read exactly once. Without a device peak (no npu_mem
     * Device rows with times) pass 2 is the only full pass.
     */
    private static MsprofSummary read(List<MsprofInput> inputs, Map<String, Long> momentsUs) throws IOException {
        // every series also keeps its maximum from ready on: the peak under load, when start-up went higher
        MsprofPass run = MsprofPass.of(momentsUs).withWindowFrom(momentsUs.containsKey("ready") ? "ready" : null);
        MsprofSummary first = MsprofAnalyzer.analyze(inputs, run.onlyTables(EnumSet.of(MsprofTable.NPU_MEM)));
        MsprofPass withPeaks = run;
        for (MsprofSeries s : first.series()) {
            if (s.quantity() != MsprofQuantity.DEVICE_HBM_PEAK || s.device() == null) {
                continue;
            }
            // +1 us: a peak's own time is kept in whole microseconds while samples carry
            // fractions (".586"), so the instant itself would fall just before its sample
            if (s.peakTimestampUs() != null) {
                withPeaks = withPeaks.withDeviceMoment(MsprofEvidence.peakMoment(s.device()), s.device(),
                        s.peakTimestampUs() + 1);
            }
            if (s.windowPeak() != null) {
                withPeaks = withPeaks.withDeviceMoment(MsprofEvidence.loadPeakMoment(s.device()), s.device(),
                        s.windowPeak().timestampUs() + 1);
            }
        }
        return MsprofAnalyzer.analyze(inputs, withPeaks);
    }

    private static final class Group {
        final String name;
        final String kind;
        final Map<String, Integer> rankIds;
        final List<MsprofInput> inputs = new ArrayList<>();

        Group(String name, String kind, Map<String, Integer> rankIds) {
            this.name = name;
            this.kind = kind;
            this.rankIds = rankIds;
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
    private static Path exportRoot(Path file, Path baseDir) {
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

package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.EvidenceException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A profiling directory named where an export file is expected: an msprof {@code PROF_*}
 * directory, a torch_npu {@code *_ascend_pt} directory, or a directory holding some. The memory
 * files exported under it are found as {@link MsprofExportWalker} finds them (one place per
 * table); a directory holding raw data only says which export command to run.
 */
public final class MsprofDirectory {

    private MsprofDirectory() {
    }

    /**
     * The exported memory files (CSV or SQLite) under {@code dir}, in path order.
     *
     * @param shown the directory as the user named it, for messages
     * @throws EvidenceException when the directory holds no export: not exported yet (names the
     *     command to run) or not a profiling directory at all
     * @throws IOException when the directory cannot be listed
     */
    public static List<Path> exportedFiles(Path dir, String shown) throws IOException, EvidenceException {
        List<Path> files = new ArrayList<>();
        for (MsprofExport x : MsprofExportWalker.find(dir)) {
            x.inputs().forEach(in -> files.add(in.path()));
        }
        if (!files.isEmpty()) {
            return files.stream().sorted().toList();
        }
        List<Path> raw = profilingDirs(dir);
        if (raw.isEmpty()) {
            throw new EvidenceException(shown, 0, "expected an evidence file or an msprof PROF_* / torch_npu *_ascend_pt"
                    + " directory, found a directory without either; name the files to read");
        }
        Path first = raw.get(0);
        boolean torch = first.getFileName().toString().endsWith("_ascend_pt");
        // CANN profiling guide, "Parsing and Exporting Profile Data": --output is the PROF_XXX
        // directory or its parent; torch_npu exports offline with torch_npu.profiler.profiler.analyse
        String command = torch
                ? "python3 -c \"from torch_npu.profiler.profiler import analyse; analyse('" + first.getParent() + "')\""
                : "msprof --export=on --output=" + (raw.size() == 1 ? first : dir);
        throw new EvidenceException(shown, 0, "expected exported memory files (npu_mem / npu_module_mem / memory_record /"
                + " operator_memory CSV, or msprof_*.db / ascend_pytorch_profiler_*.db), found " + raw.size()
                + " profiling director" + (raw.size() == 1 ? "y" : "ies") + " (" + first.getFileName()
                + (raw.size() > 1 ? ", ..." : "") + ") with raw data only: the profile was not exported."
                + " Run: " + command + ", then name the directory again");
    }

    /** {@code PROF_*} and {@code *_ascend_pt} directories at or under {@code dir} (4 levels). */
    private static List<Path> profilingDirs(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir, 4)) {
            return s.filter(Files::isDirectory).filter(p -> {
                String n = p.getFileName() == null ? "" : p.getFileName().toString();
                return n.startsWith("PROF_") || n.endsWith("_ascend_pt");
            }).sorted().toList();
        }
    }
}

package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.msprof.MsprofExportWalker;
import io.hbmledger.evidence.msprof.MsprofFiles;
import io.hbmledger.run.RunManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Recognises msprof data among a run's evidence: an export directory ({@code PROF_*},
 * {@code *_ascend_pt}, {@code mindstudio_profiler_output}, {@code ASCEND_PROFILER_OUTPUT}, or a
 * folder holding one) or one of its CSV / SQLite files, by content.
 */
final class MsprofFormats {

    private MsprofFormats() {
    }

    /** The evidence format to record for an msprof entry, or empty when the path is not msprof data. */
    static Optional<EvidenceFormat> format(Path p) throws IOException {
        if (Files.isDirectory(p)) {
            if (namedExport(p) || !MsprofExportWalker.find(p).isEmpty()) {
                return Optional.of(EvidenceFormat.MSPROF_EXPORT);
            }
            return Optional.empty();
        }
        if (!Files.isRegularFile(p)) {
            return Optional.empty();
        }
        return MsprofFiles.detect(FileHead.of(p).head());
    }

    /**
     * True when a directory given as evidence stands whole for msprof exports: a folder named as
     * one ({@code PROF_*}, {@code *_ascend_pt}, {@code mindstudio_profiler_output},
     * {@code ASCEND_PROFILER_OUTPUT}), or one holding exports and nothing else. A folder holding an
     * export and other evidence (the server log beside its {@code PROF_*}, as an issue attaches
     * them) is a folder of files, an export among them: read whole, the log was left out.
     */
    static boolean standsForExport(Path p) throws IOException {
        if (!isExportDir(p)) {
            return false;
        }
        if (namedExport(p)) {
            return true;
        }
        try (var walk = Files.walk(p, 4)) {
            for (Path f : walk.sorted().toList()) {
                String name = f.getFileName().toString();
                if (Files.isRegularFile(f) && !name.startsWith(".") && !name.startsWith("report.")
                        && !underNamedExport(p, f) && format(f).isEmpty()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean namedExport(Path dir) {
        String n = dir.getFileName() == null ? "" : dir.getFileName().toString();
        return n.startsWith("PROF_") || n.endsWith("_ascend_pt") || n.equals("mindstudio_profiler_output")
                || n.equals("ASCEND_PROFILER_OUTPUT");
    }

    /** A file below {@code top} inside a folder named as an export (its raw data, its other output). */
    private static boolean underNamedExport(Path top, Path file) {
        for (Path d = file.getParent(); d != null && !d.equals(top); d = d.getParent()) {
            if (namedExport(d)) {
                return true;
            }
        }
        return false;
    }

    /** True when a directory is an msprof export rather than a run directory. */
    static boolean isExportDir(Path p) throws IOException {
        return Files.isDirectory(p) && !Files.exists(p.resolve(RunManifest.FILE_NAME)) && format(p).isPresent();
    }
}

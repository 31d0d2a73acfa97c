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
        return Files.isDirectory(p) && !Files.exists(p.resolve(RunManifest.FILE_NAME)) && format(p).isPresent();
    }
}

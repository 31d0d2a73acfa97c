package io.hbmledger.report;

import io.hbmledger.run.AtomicFile;
import io.hbmledger.run.FileProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** report.json (hbm-ledger/report/1) beside a run's run.json, written atomically. */
public final class ReportFile {

    /** The report's name inside the run directory. */
    public static final String NAME = "report.json";

    private ReportFile() {
    }

    /**
     * Writes the report into the run directory.
     *
     * @param json the report, as {@link LedgerJsonWriter} made it
     * @return a warning when it could not be written (what happened, whether an older report.json
     *     is left there, and what to do), else empty
     */
    public static Optional<String> write(Path runDir, String json) {
        return write(runDir, NAME, json);
    }

    /**
     * Writes one view of the report (report.json, report.html) into the run directory.
     *
     * @return a warning when it could not be written, else empty
     */
    public static Optional<String> write(Path runDir, String name, String content) {
        Path report = runDir.resolve(name);
        try {
            AtomicFile.write(report, content.getBytes(StandardCharsets.UTF_8));
            return Optional.empty();
        } catch (IOException e) {
            // The ledger, the command's answer, is printed whole; report.json is its copy on disk.
            // The warning says why and what an older report.json means.
            return Optional.of(name + " not written: " + FileProblem.cannotWrite(report, e) + ". "
                    + (Files.exists(report) ? "The " + name + " there is from an earlier analysis and was NOT updated. " : "")
                    + "The ledger is printed below (exit 0). To keep the report elsewhere use --format json > FILE;"
                    + " to skip writing it use --no-write; or copy the run directory to a place you may write to.");
        }
    }

    /** Where {@link #setAside} puts a report that no longer matches its run. */
    public static final String STALE = "report.json.stale";

    /**
     * After an analysis of {@code runDir} was refused: its report.json, if any, is from an earlier
     * analysis of input that is now refused, so a CI job must not read it as this run's answer.
     * Renamed (not deleted: it may be the only copy of an earlier answer) to report.json.stale,
     * replacing an older one.
     *
     * @param write false under --no-write: nothing is changed, and the message says so
     * @return one sentence for stderr saying what became of it, or empty when there was none
     */
    public static Optional<String> setAside(Path runDir, boolean write) {
        Path report = runDir.resolve(NAME);
        if (!Files.isRegularFile(report)) {
            return Optional.empty();
        }
        if (!write) {
            return Optional.of(report + " is from an earlier analysis and does not describe this run as it is now;"
                    + " left as it was (--no-write)");
        }
        try {
            Files.move(report, runDir.resolve(STALE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return Optional.of("the earlier " + report + " was renamed to " + STALE + ": it does not describe this run as it is now");
        } catch (IOException e) {
            return Optional.of(report + " is from an earlier analysis and could not be renamed ("
                    + FileProblem.describe(e) + "); do not read it as this run's report");
        }
    }
}

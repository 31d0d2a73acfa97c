package io.hbmledger.load;

import java.util.List;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.run.RunDirectory;

/**
 * What the loading layer hands on: the typed evidence set for attribution, and the run
 * directory it came from (its collection status and where report.json goes), or null for
 * evidence files, and what loading skipped or assumed (for the report's notes).
 */
public record LoadedRun(EvidenceSet evidence, RunDirectory runDir, List<String> notes) {

    public LoadedRun {
        notes = List.copyOf(notes);
    }

    public LoadedRun(EvidenceSet evidence, RunDirectory runDir) {
        this(evidence, runDir, List.of());
    }

    /** The run directory as named in the report's heading, or null for evidence files. */
    public String runName() {
        return runDir == null ? null : runDir.dir().toString();
    }
}

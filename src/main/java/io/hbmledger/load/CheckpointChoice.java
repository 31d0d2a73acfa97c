package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.run.FileProblem;
import io.hbmledger.run.RunDirectory;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The checkpoint the ledger sizes weights with. The one named explicitly wins: --model-dir, then
 * run.json's model_dir, then a manifest among the evidence, then loose checkpoint files among
 * the evidence.
 */
final class CheckpointChoice {

    private CheckpointChoice() {
    }

    /**
     * @param errors where a checkpoint that cannot be read is said (the run is then refused)
     * @param warn where loose checkpoint files that size nothing are said (the run goes on)
     * @return the checkpoint, or null when the run names none
     */
    static CheckpointEvidence choose(Path modelDir, RunDirectory runDir, CheckpointLoader loader, EvidenceFiles read,
                                     List<String> errors, Consumer<String> warn) {
        try {
            if (modelDir != null) {
                return loader.load(modelDir, modelDir.toString(), runDir == null ? modelDir.toString() : runDir.cite(modelDir));
            }
            if (runDir != null && runDir.modelDir() != null) {
                return loader.load(runDir.modelDir(), runDir.modelDirShown(), runDir.modelDirCited());
            }
            if (read.manifest == null && !read.loose.isEmpty()) {
                try {
                    return loader.loose(read.loose);
                } catch (EvidenceException e) {
                    // Loose config.json / index files still give their observations; only the
                    // checkpoint lines are left out, and the user is told why.
                    warn.accept(e.getMessage() + "; the ledger shows no checkpoint lines");
                    return null;
                }
            }
            return read.manifest;
        } catch (EvidenceException e) {
            errors.add(e.getMessage());
        } catch (IOException e) {
            errors.add((modelDir != null ? modelDir : "the checkpoint") + ": " + FileProblem.cannotRead(e)
                    + (e instanceof FileSystemException f && f.getFile() != null ? " (" + f.getFile() + ")" : ""));
        }
        return read.manifest;
    }
}

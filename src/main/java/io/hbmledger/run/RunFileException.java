package io.hbmledger.run;

import io.hbmledger.evidence.EvidenceException;

/**
 * A run directory or its {@code run.json} cannot be used: malformed JSON, a wrong schema, or an
 * evidence path that leaves the run directory. The message names the file and, when known,
 * the line.
 */
public class RunFileException extends EvidenceException {

    public RunFileException(String file, int line, String message) {
        super(file, line, message);
    }

    public RunFileException(String file, int line, int column, String message) {
        super(file, line, column, message);
    }
}

package io.hbmledger.evidence;

/** Evidence that cannot be used: the message says what was expected, what was found, and where. */
public class EvidenceException extends Exception {

    private final String file;
    private final int line;

    /**
     * @param file the file as the user named it
     * @param line 1-based line or row, 0 when the fault is not on one line
     */
    public EvidenceException(String file, int line, String message) {
        this(file, line, 0, message);
    }

    /**
     * @param column 1-based column on that line, 0 when not known; shown as {@code file:line:column}
     */
    public EvidenceException(String file, int line, int column, String message) {
        super(file + (line > 0 ? ":" + line + (column > 0 ? ":" + column : "") : "") + ": " + message);
        this.file = file;
        this.line = line;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }
}

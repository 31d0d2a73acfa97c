package io.hbmledger.sim;

/** SIMULATOR: a usage or state error, with the exit code the stand-in command returns. */
public final class SimException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public SimException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    public SimException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}

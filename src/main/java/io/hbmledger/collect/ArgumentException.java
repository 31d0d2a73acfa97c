package io.hbmledger.collect;

/**
 * A command-line argument that cannot be used (a bad --devices list, two different ports, a state
 * directory that is a file): nothing was started, and the CLI exits 2 as for every other bad
 * argument, whichever verb found it. Other {@link CollectException}s are failures of a step.
 */
public class ArgumentException extends CollectException {

    private static final long serialVersionUID = 1L;

    public ArgumentException(String message) {
        super(message);
    }

    public ArgumentException(String message, Throwable cause) {
        super(message, cause);
    }
}

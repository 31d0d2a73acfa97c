package io.hbmledger.collect;

/** A collection or execution step that cannot go on; the message says what was expected, what was found and what to do. */
public class CollectException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CollectException(String message) {
        super(message);
    }

    public CollectException(String message, Throwable cause) {
        super(message, cause);
    }
}

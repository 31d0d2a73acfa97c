package io.hbmledger.load;

/**
 * The inputs cannot give a ledger (a bad option, a missing or repeated file, nothing to
 * attribute, unreadable evidence); the message says what was expected, what was found, where,
 * and what to do. Nothing is written.
 */
public final class BadInputException extends Exception {

    public BadInputException(String message) {
        super(message);
    }
}

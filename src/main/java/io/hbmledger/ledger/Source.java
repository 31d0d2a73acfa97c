package io.hbmledger.ledger;

/**
 * Where a number came from.
 *
 * @param file the evidence file as shown to the user (run directory joined with the path)
 * @param line 1-based line or data row
 * @param text the value exactly as written, unit included
 */
public record Source(String file, int line, String text) {

    /** {@code file:line "text"}, for the terminal. */
    public String shortForm() {
        String name = file;
        return name + ":" + line + (text == null ? "" : " \"" + text + "\"");
    }
}

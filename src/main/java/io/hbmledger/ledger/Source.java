package io.hbmledger.ledger;

/**
 * Where a number came from.
 *
 * @param file the evidence file as shown to the user (run directory joined with the path)
 * @param line 1-based line, or for a table file (CSV, SQLite) the 1-based data row, header
 *     excluded, as the evidence contract counts it
 * @param text the value exactly as written, unit included
 * @param dataRow true when {@code line} is a data row of a table file, not a line of text: it is
 *     then shown as {@code row N}, so it is never mistaken for the file's line N
 */
public record Source(String file, int line, String text, boolean dataRow) {

    public Source(String file, int line, String text) {
        this(file, line, text, false);
    }

    /**
     * {@code file:line "text"}, or {@code file row N "text"} for a data row, for the terminal. A
     * text that holds double quotes itself (a run.json line, a JSON key) is put in single quotes,
     * so that it does not read {@code ""key": 1"}; one that holds both has its double quotes escaped.
     */
    public String shortForm() {
        return file + (dataRow ? " row " : ":") + line + (text == null ? "" : " " + quoted(text));
    }

    private static String quoted(String text) {
        if (text.indexOf('"') < 0) {
            return "\"" + text + "\"";
        }
        return text.indexOf('\'') < 0 ? "'" + text + "'" : "\"" + text.replace("\"", "\\\"") + "\"";
    }
}

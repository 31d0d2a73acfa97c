package io.hbmledger.evidence;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits text into lines the way the evidence contract numbers them: a line ends at LF, a CR
 * right before the LF belongs to the line ending (CRLF files), and a lone CR stays inside the
 * line, because progress bars redraw with CR and the log line that follows is glued to them.
 */
public final class TextLines {

    private TextLines() {
    }

    /** Lines in order; index i holds line i+1. A trailing newline does not open an empty line. */
    public static List<String> split(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        int n = text.length();
        while (start < n) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            int cut = end > start && text.charAt(end - 1) == '\r' ? end - 1 : end;
            lines.add(text.substring(start, cut));
            if (nl < 0) {
                break;
            }
            start = nl + 1;
        }
        return lines;
    }

    /** 1-based line (as {@link #split} numbers them) of the first occurrence of needle at or after from; 0 when absent. */
    public static int lineOf(String text, String needle, int from) {
        int at = text.indexOf(needle, from);
        if (at < 0) {
            return 0;
        }
        int line = 1;
        for (int i = 0; i < at; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}

package io.hbmledger.evidence;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Text from an input file as quoted in a warning or an error. A cell or line can be megabytes
 * long (a runaway digit field, a log line glued to a binary blob): echoing it whole floods the
 * terminal and buries the message, so every message quotes at most {@value #MAX_CHARS}
 * characters and then says how long the text was. Control characters (a NUL run, a stray
 * escape) are shown escaped, so that the quote cannot corrupt the terminal.
 */
public final class Quote {

    /** Characters quoted before the text is cut. */
    public static final int MAX_CHARS = 80;

    private Quote() {
    }

    /** The text in single quotes, cut and escaped: {@code '1234...' (2,000,000 chars)}. */
    public static String of(CharSequence text) {
        return "'" + body(text) + "'" + length(text);
    }

    /** As {@link #of(CharSequence)}, in double quotes (JSON keys, tensor names). */
    public static String doubleQuoted(CharSequence text) {
        return "\"" + body(text) + "\"" + length(text);
    }

    /**
     * The text cut and escaped, without quotes, for messages that bracket it themselves; a
     * cut text ends in {@code "... (N chars)"}.
     */
    public static String cut(CharSequence text) {
        return body(text) + length(text);
    }

    private static String body(CharSequence text) {
        if (text == null) {
            return "null";
        }
        int n = Math.min(text.length(), MAX_CHARS);
        StringBuilder b = new StringBuilder(n + 24);
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == 0) {
                b.append("\\0");
            } else if (c < 0x20 && c != '\t' || c == 0x7f) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        if (text.length() > MAX_CHARS) {
            b.append("...");
        }
        return b.toString();
    }

    /**
     * UTF-8 bytes {@code [from, to)} in single quotes, cut and escaped, decoding only what is
     * shown: a CSV reader's cell may be hundreds of megabytes long.
     */
    public static String of(byte[] b, int from, int to) {
        int shown = Math.min(to - from, MAX_CHARS);
        String head = body(new String(b, from, shown, StandardCharsets.UTF_8));
        if (to - from > shown) {
            return "'" + head + "...'" + String.format(Locale.ROOT, " (%,d bytes)", to - from);
        }
        return "'" + head + "'";
    }

    private static String length(CharSequence text) {
        return text != null && text.length() > MAX_CHARS
                ? String.format(Locale.ROOT, " (%,d chars)", text.length()) : "";
    }
}

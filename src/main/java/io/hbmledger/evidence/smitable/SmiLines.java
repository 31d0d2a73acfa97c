package io.hbmledger.evidence.smitable;

import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.TextLines;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Normalises the lines of pasted {@code npu-smi} / {@code nvidia-smi} output and splits table
 * rows into cells. Shared by both readers because users paste both tools' tables the same ways:
 * indented inside Markdown code blocks, quoted with {@code "> "}, with CRLF or stray CR, with a
 * UTF-8 BOM or as UTF-16 (PowerShell's {@code >} redirection), and with the terminal escape
 * codes of {@code watch}.
 */
public final class SmiLines {

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z]|\u001B[()][0-9A-Za-z]");

    /** A vLLM / vllm-ascend log record header: level, then MM-DD HH:MM:SS. */
    private static final Pattern LOG_LINE =
            Pattern.compile("\\b(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\\s+\\d\\d-\\d\\d\\s+\\d\\d:\\d\\d:\\d\\d");

    private SmiLines() {
    }

    /**
     * True when cleaned lines hold a table with a recognised header row and at least as many
     * table lines as log lines: a vLLM log that quotes a table among its records belongs to
     * the log reader, a table with a few log lines pasted around it to the table reader.
     */
    public static boolean isMostlyTable(List<String> cleaned, Predicate<String> isHeader) {
        int tableLines = 0;
        int logLines = 0;
        boolean header = false;
        for (String s : cleaned) {
            if (s.startsWith("|") || s.startsWith("+")) {
                tableLines++;
                header |= isHeader.test(s);
            } else if (LOG_LINE.matcher(s).find()) {
                logLines++;
            }
        }
        return header && tableLines >= logLines;
    }

    /** True when any cleaned line is a vLLM log record header. */
    public static boolean hasLogLine(List<String> cleaned) {
        return cleaned.stream().anyMatch(s -> LOG_LINE.matcher(s).find());
    }

    /** Decodes file bytes as every text reader does ({@link TextBytes}: UTF-16 after its BOM, else UTF-8). */
    public static String decode(byte[] bytes) {
        return TextBytes.decode(bytes);
    }

    /** Lines numbered as the evidence contract numbers them (see {@link TextLines}). */
    public static List<String> lines(String text) {
        return TextLines.split(text.startsWith("\uFEFF") ? text.substring(1) : text);
    }

    /**
     * One line without what pasting adds: escape codes, CRs, leading Markdown quote markers
     * ({@code "> "}, possibly nested) and surrounding whitespace.
     */
    public static String clean(String raw) {
        String s = raw;
        if (s.indexOf('\u001B') >= 0) {
            s = ANSI.matcher(s).replaceAll("");
        }
        if (s.indexOf('\r') >= 0) {
            s = s.replace("\r", "");
        }
        s = s.strip();
        while (s.startsWith(">")) {
            s = s.substring(1).strip();
        }
        return s;
    }

    /** A border line such as {@code +-----+=====+} or {@code |=====+=====|}. */
    public static boolean isSeparator(String cleaned) {
        if (cleaned.length() < 3) {
            return false;
        }
        char first = cleaned.charAt(0);
        if (first != '+' && first != '|') {
            return false;
        }
        int rules = 0;
        for (int i = 0; i < cleaned.length(); i++) {
            char c = cleaned.charAt(i);
            if (c == '-' || c == '=') {
                rules++;
            } else if (c != '+' && c != '|' && c != ' ') {
                return false;
            }
        }
        return rules >= 3;
    }

    /** A table row: starts with {@code |} and is not a border. */
    public static boolean isRow(String cleaned) {
        return cleaned.startsWith("|") && !isSeparator(cleaned);
    }

    /**
     * The cells of a row, stripped, without the outer borders. A row cut off before its
     * closing {@code |} is reported through {@link Row#closed()} so that the caller can
     * distrust its last cell.
     */
    public static Row row(String cleaned) {
        String body = cleaned.substring(1);
        boolean closed = body.endsWith("|");
        if (closed) {
            body = body.substring(0, body.length() - 1);
        }
        List<String> cells = new ArrayList<>();
        for (String c : body.split("\\|", -1)) {
            cells.add(c.strip());
        }
        return new Row(List.copyOf(cells), closed);
    }

    /** Whitespace-separated tokens of a cell; empty for a blank cell. */
    public static List<String> tokens(String cell) {
        String s = cell.strip();
        return s.isEmpty() ? List.of() : List.of(WHITESPACE.split(s));
    }

    /**
     * A table row split at {@code |}.
     *
     * @param cells stripped cell texts, left to right
     * @param closed false when the line ended without its closing {@code |} (cut off)
     */
    public record Row(List<String> cells, boolean closed) {

        public String cell(int i) {
            return i < cells.size() ? cells.get(i) : null;
        }
    }
}

package io.hbmledger.evidence;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The lines of a text file that hold NUL bytes, collected while reading so that one warning
 * names them. A process killed mid-write, or a file system recovered after a crash, leaves
 * runs of zero bytes in an otherwise good log or pasted table: the lines they touch cannot be
 * trusted (a zeroed block may cut a number in two), the others can. Every text reader skips such
 * lines through this class, and {@link FileHead#looksBinary()} refuses only a file whose lines
 * are mostly damaged.
 *
 * <p>Not thread-safe; one instance per file read.
 */
public final class NulLines {

    /** Ranges kept for the warning; a file damaged in more places is summarised. */
    private static final int MAX_RANGES = 12;

    private final List<int[]> ranges = new ArrayList<>();
    private int lines;
    private long nulBytes;

    /** True when the text holds a NUL character. */
    public static boolean holdsNul(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Records one damaged line.
     *
     * @param line 1-based line number, ascending across calls
     * @param nuls how many NUL bytes the line held
     */
    public void add(int line, long nuls) {
        lines++;
        nulBytes += nuls;
        int[] last = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
        if (last != null && last[1] == line - 1) {
            last[1] = line;
        } else if (ranges.size() < MAX_RANGES) {
            ranges.add(new int[] {line, line});
        }
    }

    public boolean isEmpty() {
        return lines == 0;
    }

    /**
     * The text with every line that holds a NUL emptied (its line ending kept, so that the
     * other lines keep their numbers as {@link TextLines} counts them), recording those lines.
     */
    public String blank(String text) {
        if (text.indexOf('\0') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int start = 0;
        int line = 1;
        int n = text.length();
        while (start < n) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            long nuls = 0;
            for (int i = start; i < end; i++) {
                if (text.charAt(i) == 0) {
                    nuls++;
                }
            }
            if (nuls > 0) {
                add(line, nuls);
            } else {
                out.append(text, start, end);
            }
            if (nl < 0) {
                break;
            }
            out.append('\n');
            start = nl + 1;
            line++;
        }
        return out.toString();
    }

    /**
     * One warning naming the damaged lines, starting with the first ({@code "line 60: ..."}),
     * or empty when no line held a NUL.
     */
    public Optional<String> warning() {
        if (lines == 0) {
            return Optional.empty();
        }
        StringBuilder listed = new StringBuilder();
        int shown = 0;
        for (int[] r : ranges) {
            if (listed.length() > 0) {
                listed.append(", ");
            }
            listed.append(r[0] == r[1] ? Integer.toString(r[0]) : r[0] + "-" + r[1]);
            shown += r[1] - r[0] + 1;
        }
        if (shown < lines) {
            listed.append(" and ").append(lines - shown).append(" more");
        }
        return Optional.of(String.format(Locale.ROOT,
                "line %d: %d NUL byte%s on line%s %s, as a process killed mid-write or a file system"
                        + " recovered after a crash leaves; %s skipped (any figure there is unknown), the"
                        + " other lines were read. Take a fresh copy of the file if one exists",
                ranges.get(0)[0], nulBytes, nulBytes == 1 ? "" : "s", lines == 1 ? "" : "s", listed,
                lines == 1 ? "that line was" : "those lines were"));
    }
}

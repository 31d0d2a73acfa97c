package io.hbmledger.evidence;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The first bytes of a file, used to recognise its format by content rather than by name.
 *
 * @param fileName the file's name (last path element), a hint only
 * @param head up to {@link #HEAD_BYTES} leading bytes
 * @param size the whole file's size in bytes
 */
public record FileHead(String fileName, byte[] head, long size) {

    public static final int HEAD_BYTES = 64 * 1024;

    /** Reads the first {@link #HEAD_BYTES} bytes of a file (fewer when the file is shorter). */
    public static FileHead of(Path file) throws IOException {
        long size = Files.size(file);
        byte[] buf = new byte[(int) Math.min(size, HEAD_BYTES)];
        int off = 0;
        try (InputStream in = Files.newInputStream(file)) {
            while (off < buf.length) {
                int n = in.read(buf, off, buf.length - off);
                if (n < 0) {
                    break;
                }
                off += n;
            }
        }
        return new FileHead(file.getFileName().toString(), off == buf.length ? buf : Arrays.copyOf(buf, off), size);
    }

    /**
     * The head as text, decoded as every text reader decodes a file ({@link TextBytes}): UTF-16
     * after a UTF-16 byte order mark, UTF-8 otherwise (malformed bytes become U+FFFD).
     */
    public String text() {
        return TextBytes.decode(head);
    }

    /**
     * True when the whole file is in the head and holds nothing but blanks and line ends (a byte
     * order mark at most), or no byte: nothing was written to it. The one test the readers and the
     * listing share, so that they never disagree on what an empty file is.
     */
    public boolean blank() {
        return size == 0 || size <= head.length && !looksBinary() && text().replace("\uFEFF", "").isBlank();
    }

    /**
     * True when the head is not text: more than half of its lines are damaged (hold a NUL, or
     * control characters in more than 1 of 20 places). A text file with a few NUL runs, as a
     * killed process or a crashed file system leaves, is still text: its readers skip the
     * damaged lines ({@link NulLines}). Binary formats (SQLite, safetensors, gzip) have NULs
     * and control bytes throughout, so nearly every "line" of theirs is damaged.
     */
    public boolean looksBinary() {
        return damage().binary();
    }

    /** How many lines of the head are damaged, and the first one; see {@link #looksBinary()}. */
    public Damage damage() {
        String text = text();
        int lines = 0;
        int damaged = 0;
        int first = 0;
        int start = 0;
        int n = text.length();
        while (start < n) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            lines++;
            if (damaged(text, start, end)) {
                damaged++;
                if (first == 0) {
                    first = lines;
                }
            }
            if (nl < 0) {
                break;
            }
            start = nl + 1;
        }
        return new Damage(lines, damaged, first);
    }

    private static boolean damaged(String text, int start, int end) {
        int control = 0;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return true;
            }
            // tab, CR (progress bars) and ESC (colour codes) are at home in logs and tables
            if (c < 0x20 && c != '\t' && c != '\r' && c != 0x1b || c == 0x7f) {
                control++;
            }
        }
        return control > 0 && control * 20 >= end - start;
    }

    /**
     * Damaged lines of a file's head.
     *
     * @param lines lines in the head (the last may be cut at {@link #HEAD_BYTES})
     * @param damaged lines holding a NUL or many control characters
     * @param first 1-based number of the first damaged line, 0 when none
     */
    public record Damage(int lines, int damaged, int first) {

        /** More than half of the lines are damaged: binary, not a text file with a bad patch. */
        public boolean binary() {
            return damaged * 2 > lines;
        }
    }
}

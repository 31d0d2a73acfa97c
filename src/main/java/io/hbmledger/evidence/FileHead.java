package io.hbmledger.evidence;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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

    /** The head decoded as UTF-8; malformed bytes become U+FFFD. */
    public String text() {
        return new String(head, StandardCharsets.UTF_8);
    }

    /** True when the head has a NUL byte or many control bytes: not a text file. */
    public boolean looksBinary() {
        int control = 0;
        for (byte b : head) {
            if (b == 0) {
                return true;
            }
            if ((b & 0xff) < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != 0x1b) {
                control++;
            }
        }
        return head.length > 0 && control * 20 > head.length;
    }
}

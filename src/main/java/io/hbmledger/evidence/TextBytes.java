package io.hbmledger.evidence;

import java.nio.charset.StandardCharsets;

/**
 * Decodes the bytes of a text evidence file the same way for every text reader: UTF-16 when a
 * UTF-16 byte order mark starts it (PowerShell's {@code >} redirection writes UTF-16LE), UTF-8
 * otherwise with malformed bytes as U+FFFD; a leading BOM is dropped.
 */
public final class TextBytes {

    private TextBytes() {
    }

    public static String decode(byte[] bytes) {
        String text;
        if (bytes.length >= 2 && (bytes[0] & 0xff) == 0xff && (bytes[1] & 0xff) == 0xfe) {
            text = new String(bytes, 2, bytes.length - 2, StandardCharsets.UTF_16LE);
        } else if (bytes.length >= 2 && (bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xff) == 0xff) {
            text = new String(bytes, 2, bytes.length - 2, StandardCharsets.UTF_16BE);
        } else {
            text = new String(bytes, StandardCharsets.UTF_8);
        }
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    /** True when the bytes start with a UTF-16 byte order mark (either order). */
    public static boolean utf16(byte[] bytes) {
        return bytes.length >= 2 && ((bytes[0] & 0xff) == 0xff && (bytes[1] & 0xff) == 0xfe
                || (bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xff) == 0xff);
    }
}

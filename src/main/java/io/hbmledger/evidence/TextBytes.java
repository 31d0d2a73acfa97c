package io.hbmledger.evidence;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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

    /**
     * The file's text as strict UTF-8, for the JSON and pointer formats that are UTF-8 by
     * definition (config.json, safetensors indexes and headers, LFS pointers, weights manifests).
     * Reading them with {@code Files.readString} threw {@code MalformedInputException}, an I/O
     * error with no file or line (found by the fuzz tests of config.json and the safetensors index).
     *
     * @param shown the file's name in messages
     * @throws EvidenceException naming the line and byte offset of the first byte that is not UTF-8
     */
    public static String utf8(Path file, String shown) throws IOException, EvidenceException {
        return utf8(Files.readAllBytes(file), shown);
    }

    /** As {@link #utf8(Path, String)}, for bytes already read. */
    public static String utf8(byte[] bytes, String shown) throws EvidenceException {
        try {
            return strict().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            strict().decode(in, CharBuffer.allocate(bytes.length + 1), true);
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                }
            }
            throw new EvidenceException(shown, line, "not UTF-8 text (byte " + at + ", 0x"
                    + String.format("%02x", bytes[Math.min(at, bytes.length - 1)] & 0xff) + ", is not valid UTF-8): a binary or"
                    + " damaged file? expected UTF-8 JSON or text; save it again as UTF-8");
        }
    }

    private static CharsetDecoder strict() {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    /** True when the bytes start with a UTF-16 byte order mark (either order). */
    public static boolean utf16(byte[] bytes) {
        return bytes.length >= 2 && ((bytes[0] & 0xff) == 0xff && (bytes[1] & 0xff) == 0xfe
                || (bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xff) == 0xff);
    }
}

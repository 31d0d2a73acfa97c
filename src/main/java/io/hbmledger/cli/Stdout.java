package io.hbmledger.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * Standard output of a real run ({@link Main#main} sets it as picocli's): text goes through
 * picocli's writer and {@link TerminalSafeOutput}, as before; a document that holds no control
 * character by construction (JSON written with {@link io.hbmledger.report.TerminalSafeEscapes})
 * goes to the process's stream as its UTF-8 bytes, in one write. Encoding ~300 KB of JSON and
 * filtering it byte by byte took ~5 ms of a 1 GiB msprof run, and the JIT compiles that those
 * loops set off were often still running when the JVM exited, which waits for them (issue 17).
 */
final class Stdout extends PrintWriter {

    private final OutputStream bytes;

    /**
     * @param text picocli's writer to standard output
     * @param bytes the stream under it, before any filter
     */
    Stdout(PrintWriter text, OutputStream bytes) {
        super(text, true);
        this.bytes = bytes;
    }

    /**
     * Writes a UTF-8 document that holds no control character to {@code out}: as bytes when it is a
     * real run's standard output, else (a test's writer) as text.
     */
    static void writeSafeDocument(PrintWriter out, byte[] utf8) throws IOException {
        if (out instanceof Stdout stdout) {
            stdout.flush(); // what was printed before comes first
            stdout.bytes.write(utf8);
            stdout.bytes.flush();
        } else {
            out.write(new String(utf8, StandardCharsets.UTF_8));
            out.flush();
        }
    }
}

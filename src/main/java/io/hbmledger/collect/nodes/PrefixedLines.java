package io.hbmledger.collect.nodes;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A node's messages on the shared terminal: whole lines, each starting with the node's name, never interleaved mid-line. */
final class PrefixedLines extends PrintStream {

    PrefixedLines(PrintStream shared, String prefix) {
        super(new LineBuffer(shared, prefix), true, StandardCharsets.UTF_8);
    }

    private static final class LineBuffer extends OutputStream {
        private final PrintStream shared;
        private final String prefix;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineBuffer(PrintStream shared, String prefix) {
            this.shared = shared;
            this.prefix = prefix;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                synchronized (shared) {
                    shared.println(prefix + line.toString(StandardCharsets.UTF_8));
                }
                line.reset();
            } else {
                line.write(b);
            }
        }
    }
}

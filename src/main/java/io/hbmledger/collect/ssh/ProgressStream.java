package io.hbmledger.collect.ssh;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/** Passes bytes on and notes when the last ones came: a transfer's timeout is its silence, not its length. */
final class ProgressStream extends FilterOutputStream {

    private volatile long lastNanos = System.nanoTime();
    private volatile long count;

    ProgressStream(OutputStream out) {
        super(out);
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
        moved(1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        moved(len);
    }

    private void moved(int n) {
        count += n;
        lastNanos = System.nanoTime();
    }

    /** Nanoseconds since the last byte (or since creation). */
    long quietFor() {
        return System.nanoTime() - lastNanos;
    }

    long count() {
        return count;
    }
}

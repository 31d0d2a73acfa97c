package io.hbmledger.evidence.msprof;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link ByteSource} that copies a file's bytes from byte buffers holding windows of it, a
 * window at a time, each released as soon as the reader leaves it: the byte-order tests read
 * through windows over buffers of either order (byte copies do not depend on it). The readers
 * themselves use positional reads ({@link CsvFileScan}); mapped windows measured slower (issue 17).
 */
final class MappedWindows implements ByteSource {

    /** Opens the window of {@code length} bytes at file offset {@code at}. */
    @FunctionalInterface
    interface Opener {
        ByteBuffer open(long at, int length) throws IOException;
    }

    private final Opener opener;
    private final java.util.function.Consumer<ByteBuffer> release;
    private final long size;
    private final int windowBytes;
    private ByteBuffer window;
    private long windowFrom;
    private long windowTo;

    /**
     * @param release called with each window when the reader leaves it
     * @param size the file's size in bytes
     * @param windowBytes bytes per window
     */
    MappedWindows(Opener opener, java.util.function.Consumer<ByteBuffer> release, long size, int windowBytes) {
        this.opener = opener;
        this.release = release;
        this.size = size;
        this.windowBytes = windowBytes;
    }

    @Override
    public int read(byte[] dst, int off, int length, long pos) throws IOException {
        if (pos >= size) {
            return -1;
        }
        if (window == null || pos < windowFrom || pos >= windowTo) {
            close();
            windowFrom = pos;
            windowTo = Math.min(size, pos + windowBytes);
            window = opener.open(windowFrom, (int) (windowTo - windowFrom));
        }
        int n = (int) Math.min(length, windowTo - pos);
        window.get((int) (pos - windowFrom), dst, off, n);
        return n;
    }

    @Override
    public void close() {
        if (window != null) {
            ByteBuffer w = window;
            window = null;
            release.accept(w);
        }
    }
}

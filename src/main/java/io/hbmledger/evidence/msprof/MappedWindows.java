package io.hbmledger.evidence.msprof;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Copies a file's bytes into the readers' buffer from byte buffers that hold windows of the
 * file, a window at a time, each released as soon as the reader leaves it. The readers use
 * positional reads ({@link CsvFileScan}); tests read through windows over buffers of either byte
 * order, to show that the parsing does not depend on it (byte copies do not). Kept from the
 * mapped reading of issue 17's first sessions, which measured slower than positional reads.
 */
final class MappedWindows implements AutoCloseable {

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

    /**
     * Copies up to {@code length} bytes from file offset {@code pos} into {@code dst[off..]}.
     *
     * @return bytes copied, -1 at or past the end of the file
     */
    int read(byte[] dst, int off, int length, long pos) throws IOException {
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

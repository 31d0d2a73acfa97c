package io.hbmledger.evidence.msprof;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * Copies a file's bytes into the readers' buffer from a memory mapping of the file, a window
 * at a time: one copy out of the page cache, with no read system call per buffer (a read into
 * a Java array costs a second copy through a native buffer). Each window is unmapped as soon as
 * the reader leaves it ({@link Unmapper}), so resident memory stays at one window per reader
 * whatever the file size. Byte copies do not depend on the windows' byte order.
 */
final class MappedWindows implements AutoCloseable {

    /** Bytes mapped at a time: small against memory, large against the cost of one mapping. */
    static final int WINDOW = 4 << 20;

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

    /** Windows of a file mapped read-only; null where mappings cannot be unmapped (see {@link Unmapper}). */
    static MappedWindows of(FileChannel ch) throws IOException {
        if (!Unmapper.available()) {
            return null;
        }
        return new MappedWindows((at, length) -> ch.map(FileChannel.MapMode.READ_ONLY, at, length)
                .order(ByteOrder.LITTLE_ENDIAN), Unmapper::unmap, ch.size(), WINDOW);
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

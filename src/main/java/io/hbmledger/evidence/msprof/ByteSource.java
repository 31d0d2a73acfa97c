package io.hbmledger.evidence.msprof;

import java.io.IOException;

/**
 * Where a part's bytes come from when not from positional reads of the file: tests read through
 * windows over byte buffers of either byte order, to show that parsing does not depend on it.
 */
interface ByteSource extends AutoCloseable {

    /**
     * Copies up to {@code length} bytes from file offset {@code pos} into {@code dst[off..]}.
     *
     * @return bytes copied, -1 at or past the end of the file
     */
    int read(byte[] dst, int off, int length, long pos) throws IOException;

    @Override
    void close();
}

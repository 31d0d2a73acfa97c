package io.hbmledger.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;

/**
 * Standard output's file descriptor, remembering the first write that failed. A
 * {@link java.io.PrintStream} (System.out, picocli's writer) swallows write errors: before,
 * {@code hbm-ledger evidence ... > out.json} on a full disk left a cut or empty file and exited 0.
 * {@link Main} reports such a failure; a reader that stopped reading ({@code | head}: a broken pipe)
 * is no failure of the run and stays quiet.
 */
final class RecordedWrites extends FilterOutputStream {

    private IOException first;

    RecordedWrites(OutputStream out) {
        super(out);
    }

    @Override
    public void write(int b) throws IOException {
        try {
            out.write(b);
        } catch (IOException e) {
            throw remember(e);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw remember(e);
        }
    }

    @Override
    public void flush() throws IOException {
        try {
            out.flush();
        } catch (IOException e) {
            throw remember(e);
        }
    }

    private synchronized IOException remember(IOException e) {
        if (first == null) {
            first = e;
        }
        return e;
    }

    /** The first failed write, unless it only met a reader that had gone (EPIPE, "Broken pipe"). */
    synchronized Optional<IOException> failure() {
        boolean brokenPipe = first != null && first.getMessage() != null && first.getMessage().contains("Broken pipe");
        return brokenPipe ? Optional.empty() : Optional.ofNullable(first);
    }
}

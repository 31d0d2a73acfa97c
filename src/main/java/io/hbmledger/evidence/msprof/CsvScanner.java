package io.hbmledger.evidence.msprof;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.function.LongConsumer;

/**
 * Byte-level CSV tokenizer for one part of a file: splits lines at LF (a CR before it is
 * dropped) and cells at commas, honouring double-quoted cells that hold commas. A line always
 * ends at LF, even inside quotes: msprof and torch_npu never write multi-line cells, and this
 * lets a file be cut into parts at any line break and read in parallel.
 *
 * <p>Reads into one reused buffer with positional reads (or, in tests, from a {@link ByteSource}),
 * so memory does not grow with the file.
 */
final class CsvScanner {

    /**
     * Read buffer size. Small on purpose: a buffer that stays in the core's L2 cache is read
     * into and parsed from cache; 1 MiB buffers cost ~4x the kernel copy time here (measured).
     * Not smaller: the JDK copies a read through a cached direct buffer of the same size, both
     * fit in a 1 MiB L2, and against 64 KiB the 256 KiB reads took ~0.06 s less CPU on the
     * 1 GiB export (fewer reads, fewer rows cut at a buffer's end; issue 17, measured).
     * {@link FusedLineParser#SLACK} bytes at its end are never filled, for the word reads.
     */
    static final int BUFFER = (256 << 10) + FusedLineParser.SLACK;
    private static final int MAX_FIELDS = 64;

    /**
     * Longest line held whole. msprof and torch_npu rows are well under 1 KiB; a longer "line" is
     * damage (a runaway cell, a file glued to a binary blob), and holding all of it would make
     * memory grow with it (a 300 MB cell took 1.2 GB), so it is skipped up to its line break.
     */
    static final int MAX_LINE = 16 << 20;

    private CsvScanner() {
    }

    /**
     * Reads the lines that start in {@code [from, to)} and hands each one's cells to the handler.
     *
     * @param fused the fast path for clean lines, or null to use the general path only
     * @param progress told the number of bytes consumed, now and then; may be null
     * @param buffer the read buffer to use (at least a few KiB); a longer line than it holds grows it
     * @param windows where the bytes are copied from, or null to read them from {@code ch}
     * @return the buffer used, to be reused for the next part; the line count is in {@code tally.rows}
     */
    static byte[] scan(FileChannel ch, ByteSource windows, long from, long to, CsvRowHandler handler,
                       FusedLineParser fused, Tally tally, int headerFields, LongConsumer progress, byte[] buffer)
            throws IOException {
        byte[] buf = buffer;
        ByteBuffer bb = ByteBuffer.wrap(buf);
        int[] s = new int[MAX_FIELDS];
        int[] e = new int[MAX_FIELDS];
        long pos = from;
        int filled = 0;
        long row = 0;
        boolean skipping = false; // inside an over-long line, already counted and warned about
        while (true) {
            int want = (int) Math.min(buf.length - FusedLineParser.SLACK - filled, to - pos);
            int got = 0;
            if (want > 0 && windows != null) {
                while (got < want) {
                    int n = windows.read(buf, filled + got, want - got, pos + got);
                    if (n < 0) {
                        break;
                    }
                    got += n;
                }
            } else if (want > 0) {
                bb.limit(filled + want).position(filled);
                while (bb.hasRemaining()) {
                    int n = ch.read(bb, pos + got);
                    if (n < 0) {
                        break;
                    }
                    got += n;
                }
            }
            pos += got;
            filled += got;
            boolean atEnd = pos >= to || got == 0 && want > 0;
            int lineStart = 0;
            if (skipping) {
                int nl = 0;
                while (nl < filled && buf[nl] != '\n') {
                    nl++;
                }
                if (nl == filled) {
                    filled = 0;
                    if (atEnd) {
                        if (progress != null) {
                            progress.accept(pos - from);
                        }
                        tally.rows = row;
                        return buf;
                    }
                    continue;
                }
                skipping = false;
                lineStart = nl + 1;
            }
            int i = 0;
            int n = filled;
            // tokenise every complete line in the buffer
            outer:
            while (true) {
                if (fused != null) {
                    // the hot loop first: rows that continue the last clean row's series (a
                    // lane is kept across refills of the buffer)
                    lineStart = fused.laneRows(buf, lineStart, n, row + 1);
                    row += fused.laneRows();
                    if (fused.laneNeedsMore() && !atEnd) {
                        break; // read on before the next row: it may continue past the buffer
                    }
                    int next = fused.line(buf, lineStart, n, row + 1);
                    if (next >= 0) {
                        row++;
                        lineStart = next;
                        continue;
                    }
                    if (next == FusedLineParser.NEED_MORE) {
                        break;
                    }
                }
                int fields = 0;
                int cell = lineStart;
                i = lineStart;
                while (true) {
                    if (i >= n) {
                        break outer;
                    }
                    byte c = buf[i];
                    if (c == ',') {
                        if (fields < MAX_FIELDS) {
                            s[fields] = cell;
                            e[fields] = i;
                        }
                        fields++;
                        cell = ++i;
                    } else if (c == '\n') {
                        int end = i > cell && buf[i - 1] == '\r' ? i - 1 : i;
                        if (fields < MAX_FIELDS) {
                            s[fields] = cell;
                            e[fields] = end;
                        }
                        fields++;
                        row++;
                        handler.row(buf, s, e, Math.min(fields, MAX_FIELDS), row);
                        lineStart = ++i;
                        continue outer;
                    } else if (c == '"' && i == cell) {
                        i++;
                        while (i < n && buf[i] != '\n') {
                            if (buf[i] == '"') {
                                if (i + 1 < n && buf[i + 1] == '"') {
                                    i += 2;
                                    continue;
                                }
                                i++;
                                break;
                            }
                            i++;
                        }
                    } else {
                        i++;
                    }
                }
            }
            if (atEnd) {
                if (lineStart < n) {
                    // last line without a line break: possibly cut off
                    int fields = 0;
                    int cell = lineStart;
                    for (int k = lineStart; k < n; k++) {
                        if (buf[k] == ',') {
                            if (fields < MAX_FIELDS) {
                                s[fields] = cell;
                                e[fields] = k;
                            }
                            fields++;
                            cell = k + 1;
                        }
                    }
                    int end = n > cell && buf[n - 1] == '\r' ? n - 1 : n;
                    if (fields < MAX_FIELDS) {
                        s[fields] = cell;
                        e[fields] = end;
                    }
                    fields++;
                    row++;
                    if (Numbers.holdsNul(buf, lineStart, n)) {
                        tally.warn(row, "last line " + CsvRowHandler.NUL_ROW);
                        tally.emptyRows++;
                    } else if (fields < headerFields) {
                        tally.warn(row, "last line is cut off (" + fields + " of " + headerFields
                                + " fields, no line break at the end of the file); row ignored");
                    } else {
                        tally.warn(row, "the file does not end with a line break: the last row may be cut off");
                        handler.row(buf, s, e, Math.min(fields, MAX_FIELDS), row);
                    }
                }
                if (progress != null) {
                    progress.accept(pos - from);
                }
                tally.rows = row;
                return buf;
            }
            // keep the incomplete line for the next read
            int rest = n - lineStart;
            if (lineStart == 0 && rest == buf.length - FusedLineParser.SLACK && rest >= MAX_LINE) {
                row++;
                tally.warn(row, "longer than " + (MAX_LINE >> 20) + " MiB without a line break (no msprof row is"
                        + " near that; a runaway cell or binary data?); row ignored up to its line break");
                skipping = true;
                filled = 0;
                continue;
            }
            if (lineStart == 0 && rest == buf.length - FusedLineParser.SLACK) {
                byte[] bigger = new byte[buf.length * 2];
                System.arraycopy(buf, 0, bigger, 0, rest);
                buf = bigger;
                bb = ByteBuffer.wrap(buf);
            } else {
                System.arraycopy(buf, lineStart, buf, 0, rest);
            }
            filled = rest;
            if (progress != null) {
                progress.accept(pos - from - filled);
            }
        }
    }
}

package io.hbmledger.evidence.msprof;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One pass over one memory CSV: the header decides the layout, the data is cut into parts at
 * line breaks, the parts are scanned in parallel on the given executor and their tallies are
 * joined in file order. Memory per part is one buffer plus one small tally.
 */
final class CsvFileScan {

    /**
     * Files smaller than this are read as one part: splitting costs more than it saves. Not
     * more: a 32 MiB npu_mem file read as one part kept one core idle for ~0.3 s of a cold JVM
     * (issue 17); parts cost a file open and a small tally each.
     */
    static final long MIN_PART = 8L << 20;

    private final Path file;
    private final CsvLayout layout;
    private final long headerEnd;
    private final long size;
    /** Use the fused fast path for clean lines (tests turn it off to compare both paths). */
    private boolean fast = true;

    /** Read buffers handed from finished parts to the next ones: one per running part, not per part. */
    private final java.util.concurrent.ConcurrentLinkedQueue<byte[]> buffers =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    private long minPart = MIN_PART;
    private java.util.function.Function<FileChannel, ByteSource> windowsOf;
    private long bigPart = 64L << 20;

    /** Tests cut small files into many parts to check that joining parts changes nothing. */
    CsvFileScan withPartBytes(long bytes) {
        minPart = bytes;
        bigPart = bytes;
        return this;
    }

    /**
     * Tests read through windows of their own (e.g. buffers of either byte order) instead of
     * positional reads of the file; a null result reads with positional reads.
     */
    CsvFileScan withWindows(java.util.function.Function<FileChannel, ByteSource> windows) {
        windowsOf = windows;
        return this;
    }

    CsvFileScan withFastPath(boolean on) {
        fast = on;
        return this;
    }

    private CsvFileScan(Path file, CsvLayout layout, long headerEnd, long size) {
        this.file = file;
        this.layout = layout;
        this.headerEnd = headerEnd;
        this.size = size;
    }

    CsvLayout layout() {
        return layout;
    }

    long dataBytes() {
        return size - headerEnd;
    }

    /** The header line of a file, or null when the file has no line break in its first 64 KiB. */
    static String headerLine(byte[] head) {
        for (int i = 0; i < head.length; i++) {
            if (head[i] == '\n') {
                return new String(head, 0, i, java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** Bytes of the header line including its line break (counted in bytes, whatever the encoding). */
    static long headerLength(byte[] head) {
        for (int i = 0; i < head.length; i++) {
            if (head[i] == '\n') {
                return i + 1L;
            }
        }
        return head.length;
    }

    /**
     * Opens the scan of a file whose header was recognised.
     *
     * @param headerBytes length of the header line including its line break
     */
    static CsvFileScan of(Path file, CsvLayout layout, long headerBytes, long size) {
        return new CsvFileScan(file, layout, headerBytes, size);
    }

    /**
     * Scans the file. Parts run on {@code executor}; the returned future completes with the
     * joined tally (rows are file data rows, header excluded).
     *
     * @param parallelism how many parts to aim for per core-sized slice of the work
     */
    CompletableFuture<Tally> scan(Instants instants, int folderDevice, Executor executor, int parallelism,
                                  AtomicLong progress) {
        List<long[]> parts;
        try {
            parts = split(parallelism);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        List<CompletableFuture<Tally>> futures = new ArrayList<>();
        for (long[] p : parts) {
            futures.add(CompletableFuture.supplyAsync(() -> scanPart(p[0], p[1], instants, folderDevice, progress),
                    executor));
        }
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).thenApply(v -> {
            Tally joined = futures.get(0).join();
            for (int i = 1; i < futures.size(); i++) {
                joined.mergeFollowing(futures.get(i).join());
            }
            return joined;
        });
    }

    private Tally scanPart(long from, long to, Instants instants, int folderDevice, AtomicLong progress) {
        Tally tally = new Tally(instants);
        CsvRowHandler handler = new CsvRowHandler(layout, tally, folderDevice);
        long[] reported = {0};
        byte[] buffer = buffers.poll();
        if (buffer == null) {
            buffer = new byte[CsvScanner.BUFFER];
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
             ByteSource windows = windows(ch)) {
            FusedLineParser fused = fast ? FusedLineParser.forLayout(layout, handler) : null;
            buffer = CsvScanner.scan(ch, windows, from, to, handler, fused, tally, layout.fieldCount(), done -> {
                if (progress != null) {
                    progress.addAndGet(done - reported[0]);
                }
                reported[0] = done;
            }, buffer);
            buffers.add(buffer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tally;
    }

    /**
     * Null, for positional reads, unless a test gives windows. Reads beat a mapping of the file
     * here: the page faults of mapping each window and the unmapping cost more than the kernel's
     * copy (1 GiB export: ~0.05-0.1 s less CPU, measured, issue 17), memory stays one buffer per
     * reader without unmapping by hand, and no JDK-internal API is needed.
     */
    private ByteSource windows(FileChannel ch) {
        return windowsOf == null ? null : windowsOf.apply(ch);
    }

    /** Part boundaries, each at the start of a line. */
    private List<long[]> split(int parallelism) throws IOException {
        long data = size - headerEnd;
        int n = (int) Math.max(1, Math.min(4096, Math.min(data / minPart, parallelism * 4L)));
        if (n > 1 && n % parallelism != 0) {
            // a whole number of parts per core: 3 parts on 2 cores left one idle for the third
            // (the npu_mem slice, read first while the JIT is cold: ~10-25 ms)
            n += parallelism - n % parallelism;
        }
        if (data > minPart * 4L * parallelism) {
            // big files: parts of ~64 MiB keep every core busy to the end, a whole number per core
            // (the 1 GiB benchmark slice was 15 parts on 2 cores: the last one read alone)
            n = (int) Math.min(4096, data / bigPart);
            n += n % parallelism == 0 ? 0 : parallelism - n % parallelism;
        }
        List<long[]> parts = new ArrayList<>();
        long start = headerEnd;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int i = 1; i < n; i++) {
                long nominal = headerEnd + data * i / n;
                long cut = nextLineStart(ch, nominal);
                if (cut <= start || cut >= size) {
                    continue;
                }
                parts.add(new long[] {start, cut});
                start = cut;
            }
        }
        parts.add(new long[] {start, size});
        return parts;
    }

    private long nextLineStart(FileChannel ch, long at) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate(64 * 1024);
        long pos = at - 1;
        while (pos < size) {
            bb.clear();
            int n = ch.read(bb, pos);
            if (n <= 0) {
                return size;
            }
            byte[] a = bb.array();
            for (int i = 0; i < n; i++) {
                if (a[i] == '\n') {
                    return pos + i + 1;
                }
            }
            pos += n;
        }
        return size;
    }
}

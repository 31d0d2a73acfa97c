package io.hbmledger.collect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One lock file per (host, device) under {@code <state>/locks}. The OS lock (fcntl via FileLock) is
 * what guards: it disappears with the process, even after SIGKILL, so no stale lock can block the
 * next run. The file's text names the holder so that a refused collection can say who it is.
 */
public final class DeviceLocks implements AutoCloseable {

    private final List<FileChannel> channels = new ArrayList<>();
    private final List<FileLock> locks = new ArrayList<>();

    private DeviceLocks() {
    }

    /**
     * Locks every device or none.
     *
     * @throws CollectException naming the collection that holds a device
     */
    public static DeviceLocks acquire(Path stateDir, String host, List<Integer> devices, String holder) throws IOException {
        DeviceLocks held = new DeviceLocks();
        Path dir = stateDir.resolve("locks");
        java.nio.file.Files.createDirectories(dir);
        String hostPart = host.replaceAll("[^A-Za-z0-9._-]", "_");
        try {
            for (int d : devices) {
                Path f = dir.resolve(hostPart + "-device-" + d + ".lock");
                FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = ch.tryLock();
                } catch (java.nio.channels.OverlappingFileLockException e) {
                    lock = null;
                }
                if (lock == null) {
                    ByteBuffer buf = ByteBuffer.allocate(4096);
                    ch.read(buf, 0);
                    ch.close();
                    String who = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).strip();
                    throw new CollectException("device " + d + " on " + host + " is already being collected by "
                            + (who.isEmpty() ? "another hbm-ledger process" : who) + " (lock " + f
                            + "); wait for it to finish or stop it");
                }
                ch.truncate(0);
                ch.write(ByteBuffer.wrap((holder + "\n").getBytes(StandardCharsets.UTF_8)), 0);
                ch.force(true);
                held.channels.add(ch);
                held.locks.add(lock);
            }
            return held;
        } catch (IOException | RuntimeException e) {
            held.close();
            throw e;
        }
    }

    /**
     * Releases every lock, once. Synchronized: on SIGINT the interrupt thread and the collection's
     * own thread can both clean up at the same time (seen: a ConcurrentModificationException that
     * cut the interrupt message short, during phase stop).
     */
    @Override
    public synchronized void close() {
        for (FileLock l : locks) {
            try {
                l.release();
            } catch (IOException ignored) {
                // released when the channel closes anyway
            }
        }
        for (FileChannel c : channels) {
            try {
                c.close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
        locks.clear();
        channels.clear();
    }
}

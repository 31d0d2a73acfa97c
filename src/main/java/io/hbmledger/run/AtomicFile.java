package io.hbmledger.run;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a file so that readers see either the old content or the whole new content, never a
 * part: the bytes go to a temporary file in the same directory, are forced to disk, and the
 * temporary file is renamed over the target with {@code ATOMIC_MOVE}. The directory is then
 * forced too, so the rename itself survives a crash (Linux; ignored where unsupported).
 *
 * <p>The one atomic writer of the project (run.json, report.json, evidence copied by collect,
 * execution records). A new file is {@code rw-r--r--}: a run is meant to be read by others and
 * secrets are masked before they are written. A replaced file keeps its permissions, so evidence
 * rewritten in place (a log with a secret masked) keeps the mode it came with. No rename that is
 * not atomic is ever tried: a reader must never see half a file. {@link #write} makes no
 * directory (a report beside a missing run directory is an error to report);
 * {@link #writeCreatingParents} does, for the sub-directories of a run that collect fills.
 */
public final class AtomicFile {

    private AtomicFile() {
    }

    /**
     * @throws java.nio.file.FileSystemException on any write failure (including a file system
     *     that cannot rename atomically), naming {@code target}, never the temporary file, with
     *     the reason ({@link FileProblem#reason}); the target is left as it was and the
     *     temporary file is removed
     */
    public static void write(Path target, byte[] content) throws IOException {
        try {
            replace(target, content);
        } catch (IOException e) {
            throw FileProblem.about(target, e);
        }
    }

    /**
     * {@link #write}, first making the missing parent directories of {@code target}.
     *
     * @throws java.nio.file.FileSystemException as {@link #write}, naming {@code target}
     */
    public static void writeCreatingParents(Path target, byte[] content) throws IOException {
        try {
            Files.createDirectories(target.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw FileProblem.about(target, e);
        }
        write(target, content);
    }

    private static void replace(Path target, byte[] content) throws IOException {
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        Path tmp = Files.createTempFile(dir, "." + abs.getFileName() + ".", ".tmp");
        boolean moved = false;
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(content);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                // createTempFile makes the file owner-only; a run file is meant to be shared.
                Files.setPosixFilePermissions(tmp, Files.isRegularFile(abs)
                        ? Files.getPosixFilePermissions(abs) : PosixFilePermissions.fromString("rw-r--r--"));
            }
            // On POSIX, rename(2) replaces an existing target atomically.
            Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE);
            moved = true;
            forceDirectory(dir);
        } finally {
            if (!moved) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Some platforms cannot open a directory; the rename is still atomic there.
        }
    }
}

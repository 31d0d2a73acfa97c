package io.hbmledger.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The project's one atomic writer: a failed write names the file the caller meant and why, never only its
 * temporary file; a new file is readable by others, a replaced one keeps its mode.
 */
class AtomicFileTest {

    @TempDir
    Path tmp;

    @Test
    void aFailedWriteNamesTheTargetAndTheReasonAndLeavesNoFile() throws Exception {
        // the "directory" is a regular file: creating the temporary file fails with ENOTDIR
        Path notADir = Files.writeString(tmp.resolve("afile"), "");
        Path target = notADir.resolve("report.json");
        assertThatThrownBy(() -> AtomicFile.write(target, new byte[] {1}))
                .isInstanceOf(FileSystemException.class)
                .hasMessage(target + ": not a directory")
                .satisfies(e -> assertThat(((FileSystemException) e).getFile()).isEqualTo(target.toString()));
        assertThat(FileProblem.cannotWrite(target, (IOException) catchIt(target)))
                .isEqualTo("cannot write " + target + ": not a directory (a part of the path is a file, not a directory)");
        try (var left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("afile");
        }
    }

    private static Throwable catchIt(Path target) {
        try {
            AtomicFile.write(target, new byte[] {1});
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    @Test
    void reasonsComeFromTheErrnoTextOrTheExceptionType() {
        // what the JDK throws on Linux: EROFS and ENOSPC as the errno text, EACCES as its own type without a reason
        assertThat(FileProblem.cannotWrite(Path.of("/ro/report.json"), new FileSystemException("/ro/.report.json.1.tmp", null,
                "Read-only file system")))
                .isEqualTo("cannot write /ro/report.json: read-only file system (that file system is mounted read-only:"
                        + " choose a place on a writable one)");
        assertThat(FileProblem.reason(new IOException("No space left on device"))).isEqualTo("no space left on device");
        assertThat(FileProblem.advice(new IOException("No space left on device"))).contains("free space");
        assertThat(FileProblem.reason(new AccessDeniedException("/x/.tmp"))).isEqualTo("permission denied");
        // told about the target: the temporary file's name is dropped, the reason kept
        FileSystemException about = FileProblem.about(Path.of("/ro/report.json"), new AccessDeniedException("/ro/.report.json.1.tmp"));
        assertThat(about.getMessage()).isEqualTo("/ro/report.json: permission denied");
    }

    @Test
    void aNewFileIsWorldReadableAndAReplacedOneKeepsItsMode() throws Exception {
        Path fresh = tmp.resolve("run.json");
        AtomicFile.write(fresh, "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh))).isEqualTo("rw-r--r--");

        // a copied log rewritten with a secret masked: same mode as it came, new content
        Path log = Files.writeString(tmp.resolve("server.log"), "key sk-1");
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-------"));
        AtomicFile.write(log, "key ***".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(Files.readString(log)).isEqualTo("key ***");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(log))).isEqualTo("rw-------");
    }

    @Test
    void writeMakesNoDirectoryButWriteCreatingParentsDoes() throws Exception {
        Path deep = tmp.resolve("npu-smi/baseline-001.txt");
        assertThatThrownBy(() -> AtomicFile.write(deep, new byte[] {1})).isInstanceOf(FileSystemException.class)
                .hasMessage(deep + ": no such file or directory");
        AtomicFile.writeCreatingParents(deep, new byte[] {7, 0, 7});
        assertThat(Files.readAllBytes(deep)).containsExactly(7, 0, 7);
        try (var left = Files.list(deep.getParent())) {
            assertThat(left.map(p -> p.getFileName().toString())).as("no temporary file left").containsExactly("baseline-001.txt");
        }
    }
}

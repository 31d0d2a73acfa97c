package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * collect --out: a new run directory or an existing empty one, else a refusal naming the path,
 * what was expected, what was found and what to do, with nothing left behind (fresh-user report:
 * an existing file, /proc/x and file/sub each gave a Java stack trace and exit 1).
 */
class RunJournalTest {

    @TempDir
    Path tmp;

    @Test
    void aRegularFileIsRefusedAndLeftAlone() throws Exception {
        Path file = Files.writeString(tmp.resolve("afile"), "mine");
        assertThatThrownBy(() -> RunJournal.create(file, "run-x", "standalone")).isInstanceOf(ArgumentException.class)
                .hasMessage("--out " + file + ": expected a new run directory (or an existing empty one), found a regular file;"
                        + " choose another --out (collect makes the directory), e.g. --out runs/NAME");
        assertThat(Files.readString(file)).isEqualTo("mine");
    }

    @Test
    void aPathThroughAFileIsRefusedNamingTheFile() throws Exception {
        Path file = Files.writeString(tmp.resolve("afile"), "");
        assertThatThrownBy(() -> RunJournal.create(file.resolve("sub"), "run-x", "standalone"))
                .isInstanceOf(ArgumentException.class)
                .hasMessageContaining("--out " + file.resolve("sub") + ": expected a new run directory")
                .hasMessageContaining("but " + file + " on its way is a regular file, not a directory");
    }

    @Test
    void aDirectoryHoldingFilesOrARunIsRefused() throws Exception {
        Path full = Files.createDirectories(tmp.resolve("full"));
        Files.writeString(full.resolve("notes.txt"), "");
        assertThatThrownBy(() -> RunJournal.create(full, "run-x", "standalone")).isInstanceOf(ArgumentException.class)
                .hasMessageContaining("found a directory holding notes.txt; choose a new --out");
        Files.writeString(full.resolve("run.json"), "{}");
        assertThatThrownBy(() -> RunJournal.create(full, "run-x", "standalone"))
                .hasMessageContaining("found a run: " + full.resolve("run.json") + " already exists")
                .hasMessageContaining("hbm-ledger collect --resume " + full);
    }

    @Test
    void aDirectoryThatCannotBeMadeLeavesNoParentBehind() throws Exception {
        // new1/new2 can be made, the last name cannot (longer than NAME_MAX = 255 bytes): the two
        // parents made on the way are removed again
        Path out = tmp.resolve("new1").resolve("new2").resolve("r".repeat(300));
        assertThatThrownBy(() -> RunJournal.create(out, "run-x", "standalone")).isInstanceOf(ArgumentException.class)
                .hasMessageContaining("--out " + out + ": cannot create the run directory: cannot write " + out + ": file name too long")
                .hasMessageContaining("nothing was created");
        assertThat(tmp.resolve("new1")).doesNotExist();
    }

    @Test
    void aNewNestedDirectoryAndAnEmptyOneAreTakenAndARefusalRemovesWhatWasMade() throws Exception {
        Path nested = tmp.resolve("a").resolve("b");
        RunJournal j = RunJournal.create(nested, "run-b", "standalone");
        assertThat(nested.resolve("run.json")).isRegularFile();
        j.discard();
        assertThat(tmp.resolve("a")).doesNotExist();
        Path own = Files.createDirectories(tmp.resolve("own"));
        RunJournal.create(own, "run-own", "standalone").discard();
        assertThat(own).isEmptyDirectory();
    }

    /**
     * A run's id labels its processes on the host and owns its device locks: runs in folders of the
     * same name (two checkouts' ./run) get different ids, so that a resume of one never ends the
     * other's processes (two test suites at once on one host showed it: SshResumeTest).
     */
    @Test
    void runsInFoldersOfTheSameNameGetDifferentIds() {
        String a = RunJournal.newRunId(Path.of("/tmp/one/run"));
        String b = RunJournal.newRunId(Path.of("/tmp/two/run"));
        assertThat(a).matches("run-run-[0-9a-f]{8}");
        assertThat(b).matches("run-run-[0-9a-f]{8}").isNotEqualTo(a);
    }
}

package io.hbmledger.run;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of run.json ({@link RunDirectory#open}): any bytes either open as a
 * run or are refused with one line naming run.json ({@link ReaderContract#checkRefusal}).
 * Regression mode replays src/test/resources/io/hbmledger/run/RunJsonFuzzTestInputs; the seeds
 * of fuzzing mode are the examples' run.json files there (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RunJsonFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("run");

    @FuzzTest
    void runJson(byte[] data) {
        Path manifest = DIR.resolve(RunManifest.FILE_NAME);
        try {
            Files.write(manifest, data);
            RunManifest m = RunDirectory.open(DIR).manifest();
            if (m.deployment() != null && m.deployment().devices() != null
                    && m.deployment().devices().stream().anyMatch(d -> d == null || d < 0)) {
                throw new AssertionError("a run was opened with a negative or null device: " + m.deployment());
            }
        } catch (RunFileException e) {
            ReaderContract.checkRefusal(e, manifest.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

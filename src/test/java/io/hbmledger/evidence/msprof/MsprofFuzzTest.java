package io.hbmledger.evidence.msprof;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the msprof reader (CSV exports and SQLite .db) ({@link ReaderContract}). Regression mode (the default)
 * replays the inputs under src/test/resources/io/hbmledger/evidence/msprof/MsprofFuzzTestInputs; {@code JAZZER_FUZZ=1} fuzzes,
 * seeded from ../shared/corpus/msprof (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class MsprofFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("msprof");
    private static final MsprofReader READER = new MsprofReader();

    @BeforeAll
    static void seeds() {
        FuzzFiles.seed(MsprofFuzzTest.class, "msprofCsv", "msprof", List.of(".csv"));
        FuzzFiles.seed(MsprofFuzzTest.class, "msprofDb", "msprof", List.of(".db"));
    }

    @FuzzTest
    void msprofCsv(byte[] data) {
        ReaderContract.read(READER, DIR, "export.csv", data);
    }

    @FuzzTest
    void msprofDb(byte[] data) {
        ReaderContract.read(READER, DIR, "export.db", data);
    }
}

package io.hbmledger.evidence.safetensors;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the safetensors reader (file header and index) ({@link ReaderContract}). Regression mode (the default)
 * replays the inputs under src/test/resources/io/hbmledger/evidence/safetensors/SafetensorsFuzzTestInputs; {@code JAZZER_FUZZ=1} fuzzes,
 * seeded from ../shared/corpus/safetensors (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class SafetensorsFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("safetensors");
    private static final SafetensorsReader READER = new SafetensorsReader();

    @BeforeAll
    static void seeds() {
        FuzzFiles.seed(SafetensorsFuzzTest.class, "safetensorsHeader", "safetensors", List.of(".safetensors"));
        FuzzFiles.seed(SafetensorsFuzzTest.class, "safetensorsIndex", "safetensors", List.of(".index.json"));
    }

    @FuzzTest
    void safetensorsHeader(byte[] data) {
        ReaderContract.read(READER, DIR, "model.safetensors", data);
    }

    @FuzzTest
    void safetensorsIndex(byte[] data) {
        ReaderContract.read(READER, DIR, "model.safetensors.index.json", data);
    }
}

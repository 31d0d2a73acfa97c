package io.hbmledger.evidence.modelconfig;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the config.json reader ({@link ReaderContract}). Regression mode (the default)
 * replays the inputs under src/test/resources/io/hbmledger/evidence/modelconfig/ModelConfigFuzzTestInputs; {@code JAZZER_FUZZ=1} fuzzes,
 * seeded from ../shared/corpus/model-config (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ModelConfigFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("model-config");
    private static final ModelConfigReader READER = new ModelConfigReader();

    @BeforeAll
    static void seeds() {
        FuzzFiles.seed(ModelConfigFuzzTest.class, "configJson", "model-config", List.of(".json"));
    }

    @FuzzTest
    void configJson(byte[] data) {
        ReaderContract.read(READER, DIR, "config.json", data);
    }
}

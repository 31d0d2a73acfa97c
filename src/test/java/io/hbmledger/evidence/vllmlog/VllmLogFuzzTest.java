package io.hbmledger.evidence.vllmlog;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the vLLM log reader ({@link ReaderContract}). Regression mode (the default)
 * replays the inputs under src/test/resources/io/hbmledger/evidence/vllmlog/VllmLogFuzzTestInputs; {@code JAZZER_FUZZ=1} fuzzes,
 * seeded from ../shared/corpus/vllm-log (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class VllmLogFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("vllm-log");
    private static final VllmLogReader READER = new VllmLogReader();

    @BeforeAll
    static void seeds() {
        FuzzFiles.seed(VllmLogFuzzTest.class, "vllmLog", "vllm-log", List.of(".log", ".txt"));
    }

    @FuzzTest
    void vllmLog(byte[] data) {
        ReaderContract.read(READER, DIR, "server.log", data);
    }
}

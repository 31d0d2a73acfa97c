package io.hbmledger.evidence.npusmi;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the npu-smi reader ({@link ReaderContract}). Regression mode (the default)
 * replays the inputs under src/test/resources/io/hbmledger/evidence/npusmi/NpuSmiFuzzTestInputs; {@code JAZZER_FUZZ=1} fuzzes,
 * seeded from ../shared/corpus/npu-smi (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class NpuSmiFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("npu-smi");
    private static final NpuSmiReader READER = new NpuSmiReader();

    @BeforeAll
    static void seeds() {
        FuzzFiles.seed(NpuSmiFuzzTest.class, "npuSmiOutput", "npu-smi", List.of(".txt"));
    }

    @FuzzTest
    void npuSmiOutput(byte[] data) {
        ReaderContract.read(READER, DIR, "npu-smi.txt", data);
    }
}

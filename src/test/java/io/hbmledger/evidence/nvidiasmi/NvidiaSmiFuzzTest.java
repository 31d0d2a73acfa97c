package io.hbmledger.evidence.nvidiasmi;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the nvidia-smi reader (table text and --query CSV) ({@link ReaderContract}). Regression mode (the default)
 * replays the inputs under src/test/resources/io/hbmledger/evidence/nvidiasmi/NvidiaSmiFuzzTestInputs; {@code JAZZER_FUZZ=1} fuzzes,
 * seeded from ../shared/corpus/nvidia-smi (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class NvidiaSmiFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("nvidia-smi");
    private static final NvidiaSmiReader READER = new NvidiaSmiReader();

    @BeforeAll
    static void seeds() {
        FuzzFiles.seed(NvidiaSmiFuzzTest.class, "nvidiaSmiTable", "nvidia-smi", List.of(".txt"));
        FuzzFiles.seed(NvidiaSmiFuzzTest.class, "nvidiaSmiCsv", "nvidia-smi", List.of(".csv"));
    }

    @FuzzTest
    void nvidiaSmiTable(byte[] data) {
        ReaderContract.read(READER, DIR, "nvidia-smi.txt", data);
    }

    @FuzzTest
    void nvidiaSmiCsv(byte[] data) {
        ReaderContract.read(READER, DIR, "nvidia-smi.csv", data);
    }
}

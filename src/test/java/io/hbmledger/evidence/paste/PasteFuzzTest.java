package io.hbmledger.evidence.paste;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hbmledger.fuzz.FuzzFiles;
import io.hbmledger.fuzz.ReaderContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.modelconfig.ModelConfigReader;
import io.hbmledger.evidence.npusmi.NpuSmiReader;
import io.hbmledger.evidence.nvidiasmi.NvidiaSmiReader;
import io.hbmledger.evidence.vllmlog.VllmLogReader;

/**
 * Coverage-guided fuzzing of the pasted-text reader (an issue's markdown) ({@link ReaderContract}). Regression mode (the default)
 * replays the inputs under src/test/resources/io/hbmledger/evidence/paste/PasteFuzzTestInputs; {@code JAZZER_FUZZ=1} fuzzes,
 * seeded from ../shared/corpus/vllm-log (docs/readme-fuzz.md).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class PasteFuzzTest {

    private static final Path DIR = FuzzFiles.scratch("vllm-log");
    private static final List<EvidenceReader> TEXT = List.of(new ModelConfigReader(), new NpuSmiReader(),
            new NvidiaSmiReader(), new VllmLogReader());
    private static final PasteReader FENCED = new PasteReader(TEXT, true);
    private static final PasteReader LOOSE = new PasteReader(TEXT, false);

    @BeforeAll
    static void seeds() {
        FuzzFiles.seed(PasteFuzzTest.class, "pastedMarkdown", "vllm-log", List.of(".log"));
        FuzzFiles.seed(PasteFuzzTest.class, "pastedText", "npu-smi", List.of(".txt"));
    }

    @FuzzTest
    void pastedMarkdown(byte[] data) {
        ReaderContract.read(FENCED, DIR, "issue.md", data);
    }

    @FuzzTest
    void pastedText(byte[] data) {
        ReaderContract.read(LOOSE, DIR, "pasted.txt", data);
    }
}

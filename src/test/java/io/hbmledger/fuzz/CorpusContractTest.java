package io.hbmledger.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fuzz tests' contract on every real input of ../shared/corpus, read in place: the seeds of
 * fuzzing mode that regression mode does not replay (msprof, safetensors and model-config files
 * stay out of the repository). Real inputs are all usable, so each must be recognised.
 */
class CorpusContractTest {

    static Stream<String> corpusFiles() throws IOException {
        Path root = Corpus.root();
        try (Stream<Path> all = Files.walk(root)) {
            List<String> files = all.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().equals("truth.json"))
                    .filter(p -> !p.getFileName().toString().endsWith(".sql"))
                    // a LoRA adapter_config.json is read by the weights verb beside its adapter, not as evidence
                    .filter(p -> !p.getFileName().toString().endsWith("adapter_config.json"))
                    .map(p -> root.relativize(p).toString()).sorted().toList();
            return files.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("corpusFiles")
    void everyCorpusFileKeepsTheContract(String relative) throws IOException, EvidenceException {
        Path file = Corpus.file(relative);
        EvidenceFile result = EvidenceReaders.all().read(file, relative);
        assertThat(result.usable()).as(relative + " is recognised").isTrue();
        ReaderContract.check(result, relative.endsWith(".safetensors") ? Files.size(file) : Long.MAX_VALUE);
    }
}

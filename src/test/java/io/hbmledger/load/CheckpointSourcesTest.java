package io.hbmledger.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.safetensors.SafetensorsWriter;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.Source;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.PlanOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint files cited where their text is: the simulated demo's config.json (a Llama-3.1-8B
 * shape, in the repository: line 5 {@code "hidden_size": 4096,}, line 7
 * {@code "num_hidden_layers": 32,}) and a safetensors file written here.
 */
class CheckpointSourcesTest {

    private static final Path CONFIG = Path.of("examples", "simulated-collect", "model", "config.json");

    @TempDir
    Path tmp;

    private final CheckpointLoader loader = new CheckpointLoader(new ParallelLayout(1, 1, 1, false), PlanOptions.defaults());

    @Test
    void aConfigIsCitedByTheLinesOfItsSizingKeysAsWritten() throws Exception {
        List<Source> s = CheckpointSources.config("model/config.json", Files.readString(CONFIG));
        assertThat(s.get(0)).isEqualTo(new Source("model/config.json", 5, "\"hidden_size\": 4096"));
        assertThat(s).contains(new Source("model/config.json", 7, "\"num_hidden_layers\": 32"));
    }

    @Test
    void aMinifiedConfigIsQuotedByTheKeysMemberOnly() {
        String line = "{\"vocab_size\":128256,\"hidden_size\":4096,\"rope_scaling\":{\"factor\":8.0},\"num_hidden_layers\":32}";
        assertThat(CheckpointSources.member(line, "hidden_size")).isEqualTo("\"hidden_size\":4096");
        assertThat(CheckpointSources.member(line, "num_hidden_layers")).isEqualTo("\"num_hidden_layers\":32");
        assertThat(CheckpointSources.member(line, "rope_scaling")).isEqualTo("\"rope_scaling\":{\"factor\":8.0}");
        assertThat(CheckpointSources.member(line, "head_dim")).isNull();
    }

    @Test
    void aModelDirectoryIsCitedUnderTheNameTheRunGivesIt() throws Exception {
        Path model = Files.createDirectories(tmp.resolve("model"));
        Files.copy(CONFIG, model.resolve("config.json"));
        Files.write(model.resolve("model.safetensors"), new SafetensorsWriter().add("lm_head.weight", "BF16", 16, 2, 4).build());
        CheckpointEvidence ck = loader.load(model, model.toString(), "model");
        assertThat(ck.shown()).isEqualTo("model");
        // the header's first member as written, at line 1; then config.json's sizing keys
        assertThat(ck.sources().get(0).file()).isEqualTo("model/model.safetensors");
        assertThat(ck.sources().get(0).line()).isEqualTo(1);
        assertThat(ck.sources().get(0).text()).startsWith("{\"lm_head.weight\":{\"dtype\":\"BF16\"");
        assertThat(ck.sources()).contains(new Source("model/config.json", 5, "\"hidden_size\": 4096"));
        // 2 x 4 BF16 = 16 bytes of weights
        assertThat(ck.checkpoint().totalBytes()).isEqualTo(16);
    }
}

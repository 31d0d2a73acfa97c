package io.hbmledger.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Settings read from the bundled A3 log (vllm-ascend issue #2667, the reporter's output). */
class ServingSettingsParserTest {

    @Test
    void theEngineLineWinsAndTheDrafterDoesNot() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("examples/a3-llama3.1-8b-eagle3/evidence/vllm-startup.log"));
        ServingSettings s = ServingSettingsParser.parse("vllm-startup.log", lines);
        assertThat(s.get(Setting.ENGINE).orElseThrow().value()).isEqualTo("V1");
        assertThat(s.get(Setting.ENGINE_VERSION).orElseThrow().value()).isEqualTo("v0.9.1");
        // max_seq_len=128 on the engine line (line 20), not the drafter's "Using max model len 2048"
        assertThat(s.integer(Setting.MAX_MODEL_LEN)).isEqualTo(128);
        assertThat(s.get(Setting.MAX_MODEL_LEN).orElseThrow().source().line()).isEqualTo(20);
        assertThat(s.bool(Setting.ENFORCE_EAGER)).isTrue();
        assertThat(s.get(Setting.DTYPE).orElseThrow().value()).isEqualTo("torch.bfloat16");
        assertThat(s.integer(Setting.TENSOR_PARALLEL_SIZE)).isEqualTo(1);
        // from the non-default args dict (line 8)
        assertThat(s.number(Setting.GPU_MEMORY_UTILIZATION)).isEqualTo(0.8);
        assertThat(s.integer(Setting.MAX_NUM_BATCHED_TOKENS)).isEqualTo(2048);
        assertThat(s.integer(Setting.MAX_NUM_SEQS)).isEqualTo(1);
        assertThat(s.get(Setting.GPU_MEMORY_UTILIZATION).orElseThrow().source().line()).isEqualTo(8);
        assertThat(s.get(Setting.SPECULATIVE_CONFIG)).isPresent();
    }
}

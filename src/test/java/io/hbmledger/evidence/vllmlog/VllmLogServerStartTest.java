package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** server_start markers (fresh-user finding 3), read from the corpus logs. */
class VllmLogServerStartTest {

    private static List<Integer> starts(String name) throws Exception {
        String text = Files.readString(Corpus.file("vllm-log/" + name));
        return starts(VllmLogParser.parse(text));
    }

    private static List<Integer> starts(VllmLogParser.Result r) {
        return r.observations().stream().filter(o -> o.quantity() == Quantity.SERVER_START).map(Observation::line).toList();
    }

    @Test
    void shellPromptsOfTwoRunsAreStarts() throws Exception {
        // lines 1 and 12: "$ vllm serve meta-llama/Meta-Llama-3-8B" and "... -tp 2"
        assertThat(starts("vllm-pr10511_memory_profiling_results_table_truncated.log")).containsExactly(1, 12);
    }

    @Test
    void argsAndEngineLinesOfOneStartAreMarked() throws Exception {
        // line 8 "non-default args: {...}", line 20 "(EngineCore_0 pid=1440043) ... Initializing a V1 LLM engine"
        assertThat(starts("vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log")).containsExactly(8, 20);
        // line 1 the start command "ASCEND_RT_VISIBLE_DEVICES=0 vllm serve /models/Qwen2.5-3B-Instruct ...",
        // line 4 "vLLM API server version 0.9.1", line 5 non-default args, line 12 "Initializing a V0 LLM engine"
        assertThat(starts("vllm-ascend-1425_310P3_qwen2.5-3B_v0_npu_blocks_dot_glued.log")).containsExactly(1, 4, 5, 12);
    }

    @Test
    void rayWorkersAndAMidStartExcerptAreNoStarts() throws Exception {
        assertThat(starts("vllm-ascend-264_deepseek-r1_ray_tp16_npu_oom.log")).isEmpty();
        assertThat(starts("vllm-ascend-5044_v1_mooncake_available_memory_bytes.log")).isEmpty();
        assertThat(starts("vllm-pr14447_tp_workers_interleaved_v0_summary.log")).isEmpty();
    }

    @Test
    void aNumberedWorkerWithANewPidIsARestart() throws Exception {
        // 2667 (59 lines) then 5044: 5044's first line is line 60, "(EngineCore_DP0 pid=298)",
        // the engine core of DP rank 0 again (EngineCore_0 had pid 1440043)
        String text = Files.readString(Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log"))
                + Files.readString(Corpus.file("vllm-log/vllm-ascend-5044_v1_mooncake_available_memory_bytes.log"));
        assertThat(starts(VllmLogParser.parse(text))).containsExactly(8, 20, 60);
    }
}

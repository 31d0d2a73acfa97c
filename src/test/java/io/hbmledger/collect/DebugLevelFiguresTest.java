package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.vllmlog.VllmLogParser;
import io.hbmledger.evidence.vllmlog.VllmLogReader;
import io.hbmledger.testing.Corpus;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** When a server log lacks the memory figures vLLM prints only at DEBUG level, read on real logs. */
class DebugLevelFiguresTest {

    private static Optional<String> of(String corpusFile) throws Exception {
        return DebugLevelFigures.missing(VllmLogReader.parse(Corpus.file(corpusFile)));
    }

    @Test
    void v1LogAtInfoLacksTheMemorySplit() throws Exception {
        // vLLM PR 17122: a V1 start at INFO; "GPU KV cache size: ..." shows the KV cache was sized,
        // but no activation peak, non-torch or budget line was printed
        Optional<String> r = of("vllm-log/vllm-pr17122_v1_llama3.1-8B_L40S_no_memory_summary.log");
        assertThat(r).hasValueSatisfying(s -> assertThat(s)
                .contains("no DEBUG records")
                .contains("no activation peak, non-torch memory, free memory at start, requested budget"
                        + " (total x gpu_memory_utilization), profiling time, suggested --kv-cache-memory from the log")
                .contains("restart the server with VLLM_LOGGING_LEVEL=DEBUG"));
    }

    @Test
    void vllmAscendV1LogAtInfoLacksIt() throws Exception {
        // vllm-ascend issue 2667: "Available memory: N, total memory: M" (INFO) sized the cache
        assertThat(of("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log")).isPresent();
    }

    @Test
    void v0SummaryAtInfoHoldsTheSplit() throws Exception {
        // V0 worker.py prints "non_torch_memory takes ...; PyTorch activation peak memory takes ..." at INFO
        assertThat(of("vllm-log/vllm-pr14447_tp_workers_interleaved_v0_summary.log")).isEmpty();
    }

    @Test
    void logCutBeforeTheKvCacheWasSizedSaysNothing() throws Exception {
        // vLLM issue 38820's excerpt ends after "Model loading took": the split was never due
        assertThat(of("vllm-log/vllm-38820_worker_tp0_model_loading_GiB_memory_and.log")).isEmpty();
    }

    @Test
    void aDebugLogIsNotAskedToRestart() {
        // vllm/v1/worker/gpu_worker.py at DEBUG, a build that prints no profile result: only the
        // Initial-free line (DEBUG) and Available KV cache memory (INFO)
        VllmLogParser.Result r = VllmLogParser.parse(""
                + "(Worker_TP0 pid=7) DEBUG 08-20 10:00:41 [gpu_worker.py:261] Initial free memory: 61.97 GiB;"
                + " Requested memory: 0.90 (util), 57.43 GiB\n"
                + "(Worker_TP0 pid=7) INFO 08-20 10:00:41 [gpu_worker.py:270] Available KV cache memory: 40.12 GiB\n");
        assertThat(r.debugRecords()).isTrue();
        assertThat(DebugLevelFigures.missing(r)).isEmpty();
    }
}

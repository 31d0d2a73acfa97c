package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The oom finding on a real torch_npu OOM (corpus, vllm-ascend #264) and on torch 2.1+'s wording
 * (a vLLM V1 worker's line from a public issue thread); every expected figure is worked out by
 * hand in the comment beside it.
 */
class AnalyzeOomTest {

    private static final double GIB = 1L << 30;

    @TempDir
    Path tmp;

    private static JsonNode oom(JsonNode report) {
        for (JsonNode f : report.get("findings")) {
            if (f.get("kind").asText().equals("oom")) {
                return f;
            }
        }
        throw new AssertionError("no oom finding in " + report.get("findings"));
    }

    private static double gib(JsonNode finding, String figure) {
        for (JsonNode f : finding.get("figures")) {
            if (f.get("name").asText().equals(figure)) {
                return f.get("bytes").asLong() / GIB;
            }
        }
        throw new AssertionError("no figure " + figure + " in " + finding);
    }

    @Test
    void torchNpuOomInTheProfileRunIsNotFragmentation() throws Exception {
        String log = Corpus.file("vllm-log/vllm-ascend-264_deepseek-r1_ray_tp16_npu_oom.log").toString();
        JsonNode f = oom(AnalyzeFindingsTest.json(CliRun.of("analyze", log, "--no-write", "--format", "json")));
        // line 16: "Tried to allocate 17.50 GiB (NPU 15; 60.97 GiB total capacity; 53.74 GiB already
        // allocated; ...; 5.96 GiB free; 54.36 GiB reserved in total by PyTorch)"
        assertThat(gib(f, "reserved_unallocated")).isCloseTo(0.62, within(0.006));  // 54.36 - 53.74
        assertThat(gib(f, "outside_pytorch")).isCloseTo(0.65, within(0.006));       // 60.97 - 54.36 - 5.96
        assertThat(gib(f, "free_plus_cached")).isCloseTo(6.58, within(0.006));      // 5.96 + 0.62 < 17.50
        String text = f.get("text").asText();
        // lines 10-15: determine_num_available_blocks -> profile_run -> fused_experts
        assertThat(text).contains("on npu:15", "memory profiling", "not fragmentation");
        assertThat(f.get("advice").toString()).contains("max_num_batched_tokens").doesNotContain("expandable_segments");
    }

    /**
     * A report that pastes its start command and the error line only (cut before every phase line:
     * no loading line, no weights or KV figure, no traceback): the log does not show the phase, so
     * the finding says so instead of "while loading the weights" (fresh-user finding). The error is
     * the corpus 264 log's line 16, without the traceback above it.
     */
    @Test
    void anOomCutBeforeThePhaseLinesHasAnUnknownPhase() throws Exception {
        String error = java.nio.file.Files.readAllLines(Corpus.file("vllm-log/vllm-ascend-264_deepseek-r1_ray_tp16_npu_oom.log"))
                .get(15);
        Path paste = tmp.resolve("issue.md");
        Files.writeString(paste, "I start it and get:\n\n```\n$ vllm serve /models/DeepSeek-R1 --tensor-parallel-size 16"
                + " --gpu-memory-utilization 0.9\n...\n" + error + "\n```\n");
        JsonNode f = oom(AnalyzeFindingsTest.json(CliRun.of("analyze", paste.toString(), "--no-write", "--format", "json")));
        assertThat(f.get("text").asText()).contains("in a phase of the start the log does not show")
                .doesNotContain("while loading the weights");
        assertThat(f.get("advice").toString()).doesNotContain("The weights of one device do not fit")
                .contains("tells loading, profiling and the KV cache apart");
        // the figures are still read: 17.50 GiB tried with 5.96 GiB free
        assertThat(gib(f, "tried_to_allocate")).isCloseTo(17.50, within(0.006));
    }

    /** The torch 2.1+ OOM line of {@link #torch21OomWithItsCacheEnoughIsFragmentation} (its cache would have served it). */
    private static final String TORCH21_OOM = "(VllmWorker rank=1 pid=254) ERROR 05-01 10:00:00 [multiproc_executor.py:470]"
            + " torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 1 has a total capacity of 93.02 GiB"
            + " of which 1.18 GiB is free. Process 2752205 has 91.82 GiB memory in use. Of the allocated memory 90.63 GiB is"
            + " allocated by PyTorch, and 120.54 MiB is reserved by PyTorch but unallocated.";

    /**
     * An issue with its collect_env output: vLLM's layout (vllm/collect_env.py env_info_fmt: the
     * "Environment Variables" banner, then get_env_vars' NAME=value lines) and vllm-ascend's
     * (collect_env.py: "ENV Variables:", then the same lines). The allocator variable set there is
     * not advised again; the advice says it is already set and where.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {
        "==============================\n         vLLM Info\n==============================\nvLLM Version                 : 0.9.1\n"
                + "GPU Topology:\n  Could not collect\n\n==============================\n     Environment Variables\n"
                + "==============================\nNCCL_CUMEM_ENABLE=0\nPYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
                + "CUDA_MODULE_LOADING=LAZY\n",
        // vLLM's plugin loader logs before the report when a platform plugin is installed: the block reads as a log
        "INFO 02-04 09:39:22 [__init__.py:217] Platform plugin ascend is activated\n==============================\n"
                + "     Environment Variables\n==============================\nPYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n",
        "vLLM Version: 0.9.1\nvLLM Ascend Version: 0.9.1\n\nENV Variables:\nTORCH_DEVICE_BACKEND_AUTOLOAD=1\n"
                + "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n\nNPU:\nCould not collect\n"})
    void collectEnvThatSetsExpandableSegmentsIsNotAdvisedAgain(String collectEnv) throws Exception {
        Path issue = tmp.resolve("issue.md");
        String env = "### Your current environment\n\n```text\nCollecting environment information...\n" + collectEnv + "```\n";
        int line = env.substring(0, env.indexOf("PYTORCH_CUDA_ALLOC_CONF")).split("\n", -1).length;
        Files.writeString(issue, env + "\n### Describe the bug\n\n```\n" + TORCH21_OOM + "\n```\n");
        JsonNode f = oom(AnalyzeFindingsTest.json(CliRun.of("analyze", issue.toString(), "--no-write", "--format", "json")));
        assertThat(f.get("text").asText()).contains("fragmented");
        String advice = f.get("advice").toString();
        assertThat(advice).contains("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True is already set (" + issue + ":" + line)
                .doesNotContain("Set PYTORCH_CUDA_ALLOC_CONF");
    }

    @Test
    void torch21OomWithItsCacheEnoughIsFragmentation() throws Exception {
        Path log = tmp.resolve("worker.log");
        Files.writeString(log, "(VllmWorker rank=1 pid=254) ERROR 05-01 10:00:00 [multiproc_executor.py:470] torch.OutOfMemoryError:"
                + " CUDA out of memory. Tried to allocate 1.25 GiB. GPU 1 has a total capacity of 93.02 GiB of which 1.18 GiB is free."
                + " Process 2752205 has 91.82 GiB memory in use. Of the allocated memory 90.63 GiB is allocated by PyTorch,"
                + " and 120.54 MiB is reserved by PyTorch but unallocated.\n");
        JsonNode f = oom(AnalyzeFindingsTest.json(CliRun.of("analyze", log.toString(), "--no-write", "--format", "json")));
        assertThat(gib(f, "reserved")).isCloseTo(90.75, within(0.006));          // 90.63 + 120.54 MiB
        assertThat(gib(f, "free_plus_cached")).isCloseTo(1.30, within(0.006));   // 1.18 + 0.12 >= 1.25
        assertThat(gib(f, "pid 2752205")).isCloseTo(91.82, within(0.006));
        assertThat(f.get("text").asText()).contains("on gpu:1 (rank 1)", "fragmented", "the failing process itself");
        assertThat(f.get("advice").toString()).contains("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    }
}

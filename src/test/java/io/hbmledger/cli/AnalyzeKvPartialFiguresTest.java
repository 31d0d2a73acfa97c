package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No KV cache, as users paste it when the log prints only part of the budget: vLLM V1's INFO
 * lines (weights, "Available KV cache memory: -K GiB") and vllm-ascend's "Available memory: 0,
 * total memory: T" (worker_v1.py, which prints max(T x utilization - peak, 0)). The texts are
 * the users' own from vllm-project/vllm-ascend issues; the expected figures are worked by hand
 * in the comments.
 */
class AnalyzeKvPartialFiguresTest {

    @TempDir
    Path tmp;

    private List<JsonNode> findings(String name, String text, String kind) throws Exception {
        Path file = tmp.resolve(name);
        Files.writeString(file, text);
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of("analyze", file.toString(), "--no-write", "--format", "json"));
        List<JsonNode> out = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if (f.get("kind").asText().equals(kind)) {
                out.add(f);
            }
        });
        assertThat(out).as(kind + " in " + report.get("findings")).isNotEmpty();
        return out;
    }

    /**
     * vllm-ascend #9372: Qwen3-14B on a 32 GB vNPU, 27.5 GB of weights; the thread asks for the
     * advice a user can act on (a shorter max_model_len, a higher utilization, a smaller model).
     * The paste has no utilization or total, so only weights and the shortfall are known.
     */
    @Test
    void ascend9372WeightsAndANegativeKvCacheGiveTheShortfall() throws Exception {
        JsonNode f = findings("issue.md", "Deploy a model whose weights are close to the available memory:\n\n```bash\n"
                + "vllm serve /models/Qwen3-14B/ \\\n  --served-model-name qwen3-14b \\\n  --max-model-len 4096 \\\n"
                + "  --enforce-eager\n```\n\nOn a 32GB vNPU, Qwen3-14B weights are 27.5GB, leaving insufficient room for KV cache.\n\n"
                + "## Current Error\n\n```\nLoading model weights took 27.5376 GB\nAvailable KV cache memory: -0.87 GiB\n```\n",
                "kv_negative").get(0);
        // "GB" in "Loading model weights took" is GiB: 27.5376 GiB
        assertThat(SharedCasesAnalyzeTest.gib(f, "weights")).isCloseTo(27.5376, within(0.0001));
        assertThat(SharedCasesAnalyzeTest.gib(f, "kv_cache")).isCloseTo(-0.87, within(0.0001));
        assertThat(f.get("text").asText()).contains("-0.87 GiB", "weights (27.54 GiB)", "need 0.87 GiB more than its budget");
        // no what_fits answer here (no total, no KV per token): the advice must not point to one
        assertThat(f.get("advice").toString()).contains("Raise gpu_memory_utilization").doesNotContain("see what_fits");
    }

    /**
     * vllm-ascend #3843: Qwen3-Next-80B on 8 x 910B4, each rank's budget printed as 0. The 0 is
     * vllm-ascend's clamp, so the finding says nothing is left rather than "0 GiB of KV".
     */
    @Test
    void ascend3843ZeroAvailableMemoryIsNoKvCache() throws Exception {
        List<JsonNode> all = findings("serve.log", ASCEND_3843, "kv_negative");
        JsonNode f = all.get(0);
        assertThat(SharedCasesAnalyzeTest.gib(f, "kv_cache")).isZero();
        // 65452113920 B / 2^30 = 60.957 GiB, the engine's total
        assertThat(SharedCasesAnalyzeTest.gib(f, "total_seen")).isCloseTo(60.957, within(0.001));
        assertThat(f.get("text").asText()).contains("\"Available memory\"", "0.00 GiB", "max(budget - profile peak, 0)",
                "nothing is left");
    }

    /**
     * The same lines with the setting of vllm-ascend #3813 (Qwen3-Next-80B on 8 cards at 0.7,
     * which does not start either) and the weights line of #3308 (the same checkpoint at TP 8,
     * 18.6823 GB per rank): the budget and the weights give the rest of the non-KV memory.
     */
    @Test
    void ascend3843WithUtilizationAndWeightsGivesTheRestAsALowerBound() throws Exception {
        JsonNode f = findings("serve.log", "vllm serve /root/models/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 8"
                + " --gpu-memory-utilization 0.7\n(Worker_TP0 pid=552) INFO 10-28 21:10:01 [model_runner_v1.py:2661] Loading"
                + " model weights took 18.6823 GB\n" + ASCEND_3843, "kv_negative").get(0);
        // budget 0.7 x 60.957 = 42.670 GiB
        assertThat(SharedCasesAnalyzeTest.gib(f, "budget")).isCloseTo(42.670, within(0.001));
        // 42.670 - 18.6823 - 0 = 23.988: at least, as the 0 is a clamp
        assertThat(SharedCasesAnalyzeTest.gib(f, "activation_peak_and_non_torch")).isCloseTo(23.988, within(0.001));
        assertThat(f.get("text").asText()).contains("42.67 GiB", "18.68 GiB", "at least 23.99 GiB",
                "every process's memory on the device counts as non-torch");
        assertThat(f.get("advice").get(0).asText()).startsWith("Raise gpu_memory_utilization above 0.7");
    }

    /**
     * A rank with less KV cache than its peers on Ascend, in #3843's format (values made up, the
     * difference worked by hand): 12401094656 - 20401094656 = -8000000000 B = -7.45 GiB.
     */
    @Test
    void ascendRankWithLessAvailableMemoryIsNamed() throws Exception {
        StringBuilder log = new StringBuilder();
        for (int r = 0; r < 4; r++) {
            log.append("(Worker_TP").append(r).append(" pid=55").append(r).append(") INFO 10-28 21:14:48 [worker_v1.py:259]")
                    .append(" Available memory: ").append(r == 2 ? "12401094656" : "20401094656")
                    .append(", total memory: 65452113920\n");
        }
        List<JsonNode> all = findings("ranks.log", log.toString(), "rank_mismatch");
        assertThat(all).hasSize(1);
        JsonNode f = all.get(0);
        assertThat(SharedCasesAnalyzeTest.figure(f, "difference").get("bytes").asLong()).isEqualTo(-8_000_000_000L);
        assertThat(f.get("text").asText()).startsWith("Rank 2 reports KV cache of 11.55 GiB").contains("19.00 GiB");
    }

    /**
     * vLLM v0.6.3-v0.6.4's one-line profile (worker.py, PR 9352), with vllm #10439's setting (0.4,
     * Qwen2.5-0.5B; the answer there was to raise it to 0.5-0.6): the figures are made up in that
     * format. peak_torch_memory there includes the weights and is not an activation peak, so the
     * activation peak is not printed; non_torch_memory is.
     */
    @Test
    void v064ProfileLineGivesTheUtilizationForZeroKv() throws Exception {
        JsonNode f = findings("v064.log", "INFO 11-18 18:07:20 model_runner.py:1077] Loading model weights took 0.9276 GB\n"
                + "INFO 11-18 18:07:27 worker.py:232] Memory profiling results: total_gpu_memory=23.64GiB"
                + " initial_memory_usage=9.68GiB peak_torch_memory=1.43GiB memory_usage_post_profile=9.75GiB"
                + " non_torch_memory=8.75GiB kv_cache_size=-0.72GiB gpu_memory_utilization=0.40\n"
                + "INFO 11-18 18:07:28 gpu_executor.py:113] # GPU blocks: 0, # CPU blocks: 21845\n", "kv_negative").get(0);
        // 0.4 x 23.64 = 9.456; 9.456 - 0.9276 - (-0.72) = 9.2484
        assertThat(SharedCasesAnalyzeTest.gib(f, "activation_peak_and_non_torch")).isCloseTo(9.2484, within(0.0001));
        // (9.456 + 0.72) / 23.64 = 0.4305, rounded up
        assertThat(SharedCasesAnalyzeTest.figure(f, "utilization_for_zero_kv").get("value").asDouble()).isEqualTo(0.44);
        assertThat(f.get("text").asText()).contains("9.25 GiB", "non-torch 8.75 GiB of it", "0 KV blocks");
        assertThat(f.get("advice").get(0).asText()).startsWith("Raise gpu_memory_utilization above 0.44");
    }

    /**
     * V1's refusal cut before its available figure (a paste that stops at the line break of a
     * wrapped refusal, public text as posted): what one request needs and vLLM's estimate are
     * there, so the KV cache is too small, not absent.
     */
    @Test
    void aRefusalCutBeforeTheAvailableFigureIsTooSmallNotNone() throws Exception {
        JsonNode f = findings("cut.md", "```\nValueError: To serve at least one request with the model's max seq len (131072),\n"
                + "9.5 GiB KV cache is needed, which is larger than the available KV cache memory\n```\n", "kv_small").get(0);
        assertThat(SharedCasesAnalyzeTest.gib(f, "kv_needed_for_one_request")).isCloseTo(9.5, within(0.0001));
        assertThat(f.get("text").asText()).contains("131072 tokens", "9.50 GiB", "not in the evidence", "cut.md:3");
        assertThat(f.get("figures").toString()).doesNotContain("kv_shortfall");
    }

    /**
     * netease-youdao/QAnything #302 (vLLM V0 on an RTX 3090 under Docker on Windows): only the
     * engine config, 0 GPU blocks and the refusal. The blocks are named; no what_fits answer is
     * possible (no total), so the advice does not point to one.
     */
    @Test
    void v0ZeroBlocksWithoutFiguresNamesTheBlocks() throws Exception {
        JsonNode f = findings("qanything.log", "INFO 04-27 10:11:03 llm_engine.py:70] Initializing an LLM engine with config:"
                + " model='/model_repos/CustomLLM/Qwen-7B-QAnything', tokenizer='/model_repos/CustomLLM/Qwen-7B-QAnything',"
                + " tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16,"
                + " max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=1, quantization=None,"
                + " enforce_eager=False, seed=0)\n"
                + "INFO 04-27 10:13:05 llm_engine.py:275] # GPU blocks: 0, # CPU blocks: 256\n"
                + "2024-04-27 10:13:05 | ERROR | stderr | Traceback (most recent call last):\n"
                + "2024-04-27 10:13:05 | ERROR | stderr | ValueError: No available memory for the cache blocks. Try increasing"
                + " `gpu_memory_utilization` when initializing the engine.\n", "kv_negative").get(0);
        assertThat(SharedCasesAnalyzeTest.figure(f, "gpu_blocks").get("value").asDouble()).isZero();
        assertThat(f.get("text").asText()).contains("qanything.log:4", "0 KV blocks");
        assertThat(f.get("advice").toString()).contains("Raise gpu_memory_utilization").doesNotContain("what_fits");
    }

    /**
     * The shared case vllm-13882 (RTX 4060 8 GB, Qwen2.5-7B 4-bit) as a Python user pastes it:
     * the LLM(...) call that sets max_model_len, and the profile lines without the "Maximum
     * concurrency for 4096 tokens" line that would give it. what_fits needs max_model_len: from the
     * call. Worked in the case: 57,344 B/token x 4096 = 0.22 GiB; (6.65 + 0.22) / 8.00 = 0.859 -> 0.86.
     */
    @Test
    void pythonCallGivesMaxModelLenForWhatFits() throws Exception {
        JsonNode f = findings("issue.md", "```python\nllm = LLM(\n    model=\"Qwen/Qwen2.5-7B-Instruct-AWQ\",\n"
                + "    gpu_memory_utilization=0.7,\n    max_model_len=4096,\n)\n```\n\n```\n"
                + "INFO 02-26 09:54:05 worker.py:267] the current vLLM instance can use total_gpu_memory (8.00GiB) x"
                + " gpu_memory_utilization (0.70) = 5.60GiB\n"
                + "INFO 02-26 09:54:05 worker.py:267] model weights take 5.20GiB; non_torch_memory takes 0.03GiB; PyTorch"
                + " activation peak memory takes 1.42GiB; the rest of the memory reserved for KV Cache is -1.05GiB.\n"
                + "INFO 02-26 09:54:05 executor_base.py:111] # cuda blocks: 0, # CPU blocks: 4681\n```\n", "what_fits").get(0);
        assertThat(SharedCasesAnalyzeTest.figure(f, "max_model_len").get("value").asDouble()).isEqualTo(4096);
        assertThat(SharedCasesAnalyzeTest.figure(f, "smallest_utilization").get("value").asDouble()).isEqualTo(0.86);
    }

    /**
     * vllm-ascend #14678 (DeepSeek-V4 on A2 NPUs): the KV budget of 11.35 GiB falls short of the
     * 12.06 GiB one request needs; the reporter's workaround was to raise the utilization from
     * 0.94 to 0.965. In vLLM's wording, with the NPU total of #3843's 64 GB cards: 0.71 GiB /
     * 60.957 GiB = 0.0116, rounded up 0.02: at least 0.96, which the workaround meets.
     */
    @Test
    void ascend14678TooSmallKvGivesTheUtilizationThatFits() throws Exception {
        JsonNode f = findings("v4.log", "vllm serve /home/admin/model/ --gpu-memory-utilization 0.94\n"
                + "(Worker_DP0_TP0_EP0 pid=501) INFO 08-20 10:00:00 [worker.py:300] Available memory: 12186912358,"
                + " total memory: 65452113920\n"
                + "(EngineCore_DP0 pid=400) ValueError: (12.06 GiB KV cache is needed, which is larger than the available KV"
                + " cache memory (11.35 GiB).\n", "kv_small").get(0);
        assertThat(SharedCasesAnalyzeTest.gib(f, "kv_shortfall")).isCloseTo(0.71, within(0.0001));
        assertThat(f.get("advice").toString()).contains("at least 0.96 (0.94 + 0.71 GiB / 60.96 GiB, rounded up)");
    }

    /** vllm-ascend #3843, the ranks' budget lines and the refusal as the user pasted them (traceback trimmed). */
    private static final String ASCEND_3843 = """
            (Worker_TP2 pid=554) INFO 10-28 21:14:48 [worker_v1.py:259] Available memory: 0, total memory: 65452113920
            (Worker_TP4 pid=556) INFO 10-28 21:14:48 [worker_v1.py:259] Available memory: 0, total memory: 65452113920
            (Worker_TP7 pid=559) INFO 10-28 21:14:49 [worker_v1.py:259] Available memory: 0, total memory: 65452113920
            (Worker_TP0 pid=552) INFO 10-28 21:14:49 [worker_v1.py:259] Available memory: 0, total memory: 65452113920
            (EngineCore_DP0 pid=415) ERROR 10-28 21:14:49 [core.py:708] EngineCore failed to start.
            (EngineCore_DP0 pid=415) ERROR 10-28 21:14:49 [core.py:708] ValueError: No available memory for the cache blocks. \
            Try increasing `gpu_memory_utilization` when initializing the engine.
            """;
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pastes written the way users paste into issues (fresh-user session, 2026-12-02): an npu-smi or
 * nvidia-smi table with the start-up log under it. The lines follow vLLM / vllm-ascend's formats
 * as in the corpus (worker prefixes, "Available memory: N, total memory: T", nvidia-smi's date
 * line); every expected figure is worked out by hand in the comments.
 */
class AnalyzeFreshUserPastesTest {

    @TempDir
    Path tmp;

    private static final String NPU_SMI_HEAD = """
            +------------------------------------------------------------------------------------------------+
            | npu-smi 24.1.0                   Version: 24.1.0                                               |
            +---------------------------+---------------+----------------------------------------------------+
            | NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
            | Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
            +===========================+===============+====================================================+
            """;

    private static final String NVIDIA_SMI = """
            Tue Jun 10 09:12:44 2025
            +-----------------------------------------------------------------------------------------+
            | NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
            |-----------------------------------------+------------------------+----------------------+
            | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
            | Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
            |                                         |                        |               MIG M. |
            |=========================================+========================+======================|
            |   0  NVIDIA A100-SXM4-40GB          On  |   00000000:07:00.0 Off |                    0 |
            | N/A   31C    P0             58W /  400W |    1203MiB /  40960MiB |      0%      Default |
            |                                         |                        |             Disabled |
            +-----------------------------------------+------------------------+----------------------+

            +-----------------------------------------------------------------------------------------+
            | Processes:                                                                              |
            |  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
            |        ID   ID                                                               Usage      |
            |=========================================================================================|
            |    0   N/A  N/A      2231      C   /usr/bin/python3                             1194MiB |
            +-----------------------------------------------------------------------------------------+
            """;

    private static final String V1_NO_KV = """
            INFO 06-10 09:13:01 [cli_args.py:309] non-default args: {'model': 'Qwen/Qwen3-32B', 'gpu_memory_utilization': 0.85}
            (EngineCore_0 pid=3011) INFO 06-10 09:14:30 [gpu_model_runner.py:1347] Model loading took 30.5923 GiB and 85.2 seconds
            (EngineCore_0 pid=3011) INFO 06-10 09:14:41 [gpu_worker.py:227] Available KV cache memory: -0.87 GiB
            (EngineCore_0 pid=3011) ERROR 06-10 09:14:41 [core.py:515] ValueError: No available memory for the cache blocks. \
            Try increasing `gpu_memory_utilization` when initializing the engine.
            """;

    private JsonNode analyze(String name, String text) throws Exception {
        Path file = tmp.resolve(name);
        Files.writeString(file, text);
        return AnalyzeFindingsTest.json(CliRun.of("analyze", file.toString(), "--no-write", "--format", "json"));
    }

    private static JsonNode only(JsonNode report, String kind) {
        JsonNode found = null;
        for (JsonNode f : report.get("findings")) {
            if (f.get("kind").asText().equals(kind)) {
                assertThat(found).as("one " + kind + " in " + report.get("findings")).isNull();
                found = f;
            }
        }
        assertThat(found).as(kind + " in " + report.get("findings")).isNotNull();
        return found;
    }

    /**
     * The log names its engine core's pid (4312); the npu-smi table lists another (88213). The
     * finding said "No evidence names the server's own pids" while the ledger's note named 4312.
     */
    @Test
    void otherTenantSaysWhichServerPidsTheLogNames() throws Exception {
        JsonNode f = only(analyze("issue.md", "```\n" + NPU_SMI_HEAD + """
                | 0     910B3               | OK            | 95.2        36                0    / 0             |
                | 0                         | 0000:C1:00.0  | 0           0    / 0          41250/ 65536         |
                +===========================+===============+====================================================+
                +---------------------------+---------------+----------------------------------------------------+
                | NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
                +===========================+===============+====================================================+
                | 0       0                 | 88213         | python3                  | 37862                   |
                +===========================+===============+====================================================+
                ```

                ```
                (EngineCore_0 pid=4312) INFO 06-12 10:01:20 [model_runner_v1.py:1745] Loading model weights took 14.2488 GB
                ```
                """), "other_tenant");
        // 37862 MiB = 36.97 GiB
        assertThat(f.get("text").asText()).contains("pid 88213 python3 (36.97 GiB)",
                "None of the server's pids that the evidence names (4312) is in this table")
                .doesNotContain("No evidence names the server's own pids");
        assertThat(f.get("advice").get(0).asText()).startsWith("Give the server's pids as this table lists them");
    }

    /**
     * V1 on a CUDA host: "Available KV cache memory: -0.87 GiB" with another process on the GPU
     * and no total printed. The advice named vllm-ascend and its issue #7308.
     */
    @Test
    void kvNegativeOnCudaDoesNotCiteVllmAscend() throws Exception {
        JsonNode f = analyze("cuda.txt", NVIDIA_SMI + "\n" + V1_NO_KV).get("findings");
        JsonNode kv = null;
        for (JsonNode x : f) {
            if (x.get("kind").asText().equals("kv_negative")) {
                kv = x;
            }
        }
        assertThat(kv).as("kv_negative in " + f).isNotNull();
        assertThat(kv.get("text").asText()).contains("-0.87 GiB", "weights (30.59 GiB)", "Others hold memory on this device");
        assertThat(kv.get("advice").toString()).contains("on a vLLM release that counts it")
                .doesNotContain("vllm-ascend");
    }

    /**
     * nvidia-smi prints the date above its table. Unfenced, that line was prose of its own and
     * hid "Before starting vLLM, nvidia-smi shows:" two lines above the table.
     */
    @Test
    void theDateLineOfNvidiaSmiBelongsToItsTable() throws Exception {
        Path file = tmp.resolve("before.txt");
        Files.writeString(file, "Before starting vLLM, nvidia-smi shows:\n\n" + NVIDIA_SMI + "\n" + V1_NO_KV);
        CliRun r = CliRun.of("evidence", file.toString(), "--format", "json");
        JsonNode parts = new ObjectMapper().readTree(r.out()).get("files").get(0).get("parts");
        JsonNode table = null;
        for (JsonNode p : parts) {
            if (p.get("format").asText().equals("nvidia-smi")) {
                table = p;
            }
        }
        assertThat(table).as("nvidia-smi part in " + parts).isNotNull();
        assertThat(table.get("first_line").asInt()).isEqualTo(3);
        assertThat(table.get("idle").get("line").asInt()).isEqualTo(1);
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of("analyze", file.toString(), "--no-write", "--format", "json"));
        // taken at baseline: 1203 MiB is the idle reading, not "used" at the failed start
        JsonNode gpu0 = report.get("devices").get(0);
        assertThat(gpu0.get("used_bytes").isNull()).isTrue();
    }

    private static final String ASCEND_TWO_INSTANCES = """
            (EngineCore_DP0 pid=2455) INFO 07-01 10:00:00 [utils.py:328] non-default args: {'model': '/data/Qwen2.5-7B-Instruct', 'gpu_memory_utilization': 0.45}
            (EngineCore_DP0 pid=2455) INFO 07-01 10:00:21 [model_runner_v1.py:2010] Loading model weights took %s GB
            (EngineCore_DP0 pid=2455) INFO 07-01 10:00:30 [worker_v1.py:256] Available memory: 0, total memory: 31662800896
            (EngineCore_DP0 pid=2455) ERROR 07-01 10:00:30 [core.py:708] ValueError: No available memory for the cache blocks. \
            Try increasing `gpu_memory_utilization` when initializing the engine.
            """;

    private static JsonNode entry(JsonNode report, String component) {
        for (JsonNode e : report.get("devices").get(0).get("entries")) {
            if (e.get("component").asText().equals(component)) {
                return e;
            }
        }
        throw new AssertionError("no " + component);
    }

    private static boolean checkWarns(JsonNode report, String name) {
        for (JsonNode c : report.get("devices").get(0).get("checks")) {
            if (c.get("name").asText().equals(name) && !c.get("status").asText().equals("pass")) {
                return true;
            }
        }
        return false;
    }

    /**
     * vllm-ascend prints max(0.45 x 31662800896 - peak, 0) = 0. Budget floor(14248260403.2) =
     * 14248260403 B (13.27 GiB); weights 14.2397 GiB = 15289761451 B: they alone exceed the
     * budget by 1041501048 B (0.97 GiB). The finding said "activation peak and non-torch at least
     * -0.97 GiB" and a check called the figures impossible, though the 0 is a clamp.
     */
    @Test
    void weightsAboveTheBudgetBehindAClampedZeroAreSaidPlainly() throws Exception {
        JsonNode report = analyze("ascend.log", ASCEND_TWO_INSTANCES.formatted("14.2397"));
        JsonNode f = only(report, "kv_negative");
        assertThat(f.get("text").asText()).contains("the weights alone take 14.24 GiB, 0.97 GiB more than the whole budget")
                .doesNotContain("at least -");
        assertThat(SharedCasesAnalyzeTest.figure(f, "weights_over_budget").get("bytes").asDouble())
                .isCloseTo(1041501048, within(2.0));
        assertThat(checkWarns(report, "vllm_figures_consistent")).isFalse();
        JsonNode rest = entry(report, "activation_peak_and_non_torch");
        assertThat(rest.get("confidence").asText()).isEqualTo("unknown");
        assertThat(rest.get("note").asText()).contains("exceed it by 1041501048 B");
        // the advice keeps its second half after the clamp's own sentence
        assertThat(f.get("advice").toString()).contains("the engine prints 0 for any shortfall), if that much is free at"
                + " start, or lower the non-KV memory: a smaller activation peak");
    }

    /**
     * With a clamped 0 and a checkpoint's KV bytes per token, what_fits had "13.27 GiB needed
     * before any KV" (budget - 0) and advised 0.48, below the 14.24 GiB of weights alone. The
     * non-KV memory is unknown there, so what_fits does not answer.
     */
    @Test
    void aClampedZeroGivesNoWhatFitsAnswer() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("model"));
        Files.writeString(dir.resolve("config.json"), "{\"architectures\": [\"Qwen2ForCausalLM\"], \"hidden_size\": 3584,"
                + " \"num_hidden_layers\": 28, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
                + " \"intermediate_size\": 18944, \"vocab_size\": 152064, \"torch_dtype\": \"bfloat16\","
                + " \"max_position_embeddings\": 32768}\n");
        Path log = tmp.resolve("ascend-mm.log");
        Files.writeString(log, ASCEND_TWO_INSTANCES.formatted("14.2397").replace("'gpu_memory_utilization': 0.45}",
                "'gpu_memory_utilization': 0.45, 'max_model_len': 4096}"));
        JsonNode report = AnalyzeFindingsTest.json(CliRun.of("analyze", log.toString(), "--model-dir", dir.toString(),
                "--no-write", "--format", "json"));
        for (JsonNode f : report.get("findings")) {
            assertThat(f.get("kind").asText()).as(f.toString()).isNotEqualTo("what_fits");
        }
        assertThat(only(report, "kv_negative").get("advice").toString()).doesNotContain("see what_fits");
    }

    /**
     * The same clamp with 10 GiB of weights: the peak is at least the budget, so activation peak
     * and non-torch are at least 14248260403 - 10737418240 = 3510842163 B (3.27 GiB), a lower
     * bound, not the figure itself.
     */
    @Test
    void aClampedZeroGivesALowerBoundForTheRestOfThePeak() throws Exception {
        JsonNode report = analyze("ascend10.log", ASCEND_TWO_INSTANCES.formatted("10.0000"));
        JsonNode rest = entry(report, "activation_peak_and_non_torch");
        assertThat(rest.get("bytes").asLong()).isEqualTo(3510842163L);
        assertThat(rest.get("note").asText()).startsWith("at least this much");
        assertThat(rest.get("arithmetic").asText()).contains("profile peak >= floor(0.45 x 31662800896) = 14248260403 B");
    }

    /**
     * ASCEND_RT_VISIBLE_DEVICES=2,3: torch's "NPU 0" is physical NPU 2, the ledger's row npu:2
     * (npu:2/chip:0 with an npu-smi table). The finding said "on npu:0" beside that row.
     */
    @Test
    void anOomNamesTheLedgersDeviceBesideTheMessagesNumber() throws Exception {
        JsonNode f = only(analyze("oom.md", """
                ```bash
                ASCEND_RT_VISIBLE_DEVICES=2,3 vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 2 --gpu-memory-utilization 0.92
                ```

                ```
                (Worker_TP0 pid=7711) INFO 07-02 11:20:03 [model_runner_v1.py:2010] Loading model weights took 28.4725 GB
                (Worker_TP0 pid=7711) ERROR 07-02 11:21:40 [multiproc_executor.py:527] RuntimeError: NPU out of memory. \
                Tried to allocate 1.20 GiB (NPU 0; 60.97 GiB total capacity; 57.13 GiB already allocated; 57.13 GiB current \
                active; 0.61 GiB free; 58.90 GiB reserved in total by PyTorch)
                ```
                """), "oom");
        assertThat(f.get("text").asText()).startsWith("Out of memory on npu:2 (rank 0; the message's npu:0,");
    }

    /**
     * CUDA_VISIBLE_DEVICES=1, one server without worker ranks: torch's "GPU 0" is gpu:1. The
     * driver lists two processes (6.50 + 15.92 GiB); the text said "other processes and any other
     * process" and pointed to an other_tenant finding that an OOM message alone never makes.
     * Outside PyTorch: 23.64 - 15.52 - 1.21 = 6.91 GiB (15.52 = 15.46 GiB allocated + 61.37 MiB cached).
     */
    @Test
    void aCudaOomWithTwoProcessesReadsOnce() throws Exception {
        JsonNode f = only(analyze("cuda-oom.md", """
                ```
                CUDA_VISIBLE_DEVICES=1 python -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.5
                INFO 03-04 12:00:01 [worker.py:267] Loading model weights took 14.9888 GB
                torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB                 of which 1.21 GiB is free. Process 8812 has 6.50 GiB memory in use. Process 9120 has 15.92 GiB memory in use.                 Of the allocated memory 15.46 GiB is allocated by PyTorch, and 61.37 MiB is reserved by PyTorch but unallocated.
                ```
                """), "oom");
        String text = f.get("text").asText();
        assertThat(text).startsWith("Out of memory on gpu:1 (the message's gpu:0,")
                .contains("6.91 GiB (23.64 - 15.52 - 1.21 GiB) was outside PyTorch's allocator: the runtime context,"
                        + " communication buffers and the other processes.")
                .contains("pid 8812 6.50 GiB, pid 9120 15.92 GiB")
                .doesNotContain("any other process").doesNotContain("see other_tenant");
    }

    private static final String V0_NEGATIVE = """
            INFO 02-20 10:11:12 llm_engine.py:234] Initializing an LLM engine (v0.7.3) with config: model='/home/models/Qwen2.5-32B-Instruct', tensor_parallel_size=2, gpu_memory_utilization=0.9, max_seq_len=32768
            INFO 02-20 10:12:59 worker.py:267] the current vLLM instance can use total_gpu_memory (29.49GiB) x gpu_memory_utilization (0.90) = 26.54GiB
            INFO 02-20 10:12:59 worker.py:267] model weights take %sGiB; non_torch_memory takes 0.22GiB; PyTorch activation peak memory takes 2.10GiB; the rest of the memory reserved for KV Cache is %sGiB.
            INFO 02-20 10:13:00 executor_base.py:110] # npu blocks: 0, # CPU blocks: 1638
            ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.
            """;

    /**
     * V0, 0 blocks: KV bytes per token from 1638 CPU blocks of the 4 GiB swap space (163,840 B,
     * the multiple of 128 in 4 GiB / 1639 / 16 .. 4 GiB / 1638 / 16), x 32768 = 5.00 GiB per
     * request. Weights 30.71 + 0.22 + 2.10 = 33.03 GiB before any KV, above the 29.49 GiB total:
     * what_fits said "no utilization fits" and advised "at least 1.29"; kv_negative said "raise".
     */
    @Test
    void whenNoUtilizationFitsNoneIsAdvised() throws Exception {
        JsonNode report = analyze("v0.log", V0_NEGATIVE.formatted("30.71", "-6.49"));
        JsonNode fits = only(report, "what_fits");
        assertThat(SharedCasesAnalyzeTest.figure(fits, "smallest_utilization").get("value").asDouble()).isEqualTo(1.29);
        assertThat(fits.get("text").asText()).contains("(33.03 + 5.00) / 29.49 GiB = 1.29",
                "the memory needed before any KV cache alone exceeds the total 29.49 GiB");
        assertThat(fits.get("advice").toString()).contains("No gpu_memory_utilization serves one request")
                .doesNotContain("at least 1.29").doesNotContain("lower max_model_len");
        assertThat(only(report, "kv_negative").get("advice").get(0).asText())
                .startsWith("No gpu_memory_utilization fits one request on this device (see what_fits)");
    }

    /**
     * Weights 26.00 + 0.22 + 2.10 = 28.32 GiB fit in the 29.49 GiB total, but not with a 5.00 GiB
     * request: (28.32 + 5.00) / 29.49 = 1.13. The old text blamed the non-KV memory alone.
     */
    @Test
    void whenOneRequestTipsItAShorterMaxModelLenIsAdvised() throws Exception {
        JsonNode fits = only(analyze("v0b.log", V0_NEGATIVE.formatted("26.00", "-1.78")), "what_fits");
        assertThat(fits.get("text").asText()).contains("= 1.13", "that plus one request's KV cache exceeds the total 29.49 GiB");
        assertThat(fits.get("advice").toString()).contains("lower max_model_len so that one request's KV cache fits");
    }

    /** A file of blank lines, or of a byte order mark and nothing else, was "format not recognised". */
    @Test
    void blankFilesAreSaidToBeBlank() throws Exception {
        Path bom = tmp.resolve("bom.txt");
        Files.write(bom, new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '\n'});
        Path blank = tmp.resolve("blank.txt");
        Files.writeString(blank, "\n  \r\n\t\n");
        CliRun r = CliRun.of("evidence", bom.toString(), blank.toString());
        // no evidence is an answer, not bad input (EvidenceNoEvidenceTest): listed, and said on stderr
        assertThat(r.exit()).isEqualTo(0);
        assertThat(r.out()).contains("bom.txt  [unknown]  0 observations", "blank.txt  [unknown]  0 observations")
                .contains("the file is empty (no byte, or blank lines only)");
        assertThat(r.err()).contains("no evidence found in " + bom, "no evidence found in " + blank)
                .doesNotContain("format not recognised");
    }

    /**
     * Two instances at 0.45 + 0.45 = 0.9 (stated in the prose and the second's log): they fit by
     * vLLM's arithmetic, yet the advice was "e.g. 2 x 0.45 = 0.9", the settings that failed.
     */
    @Test
    void sharesThatFitAreNotAdvisedAgain() throws Exception {
        JsonNode f = only(analyze("two.md", "在同一张910B4上启动两个vllm实例，第一个 --gpu-memory-utilization 0.45 正常，第二个也设置0.45，结果报错。\n\n```\n"
                + ASCEND_TWO_INSTANCES.formatted("10.0000") + "```\n"), "over_subscribed");
        assertThat(SharedCasesAnalyzeTest.figure(f, "utilization_sum").get("value").asDouble()).isEqualTo(0.9);
        assertThat(f.get("advice").get(0).asText()).startsWith("These shares already sum to at most ~0.9")
                .doesNotContain("2 x 0.45");
    }

    /** A model directory with the index but no shard (a partial download) said only "no safetensors headers". */
    @Test
    void weightsOfAnIndexWithoutShardsNamesTheMissingShards() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("partial download"));
        Files.writeString(dir.resolve("model.safetensors.index.json"), "{\"metadata\": {\"total_size\": 1024},"
                + " \"weight_map\": {\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\","
                + " \"lm_head.weight\": \"model-00002-of-00002.safetensors\"}}\n");
        CliRun r = CliRun.of("weights", dir.toString(), "--tp", "1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("names 2 shard file(s), e.g. model-0000", "none of them is in the directory",
                "pass the directory that holds the shards or config.json");
    }

    /** A Qwen2.5-7B-shaped config.json: 28 layers, 4 KV heads of 128, bfloat16; 32768 positions. */
    private Path qwen7b() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("qwen7b"));
        Files.writeString(dir.resolve("config.json"), "{\"architectures\": [\"Qwen2ForCausalLM\"], \"hidden_size\": 3584,"
                + " \"num_hidden_layers\": 28, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
                + " \"intermediate_size\": 18944, \"vocab_size\": 152064, \"torch_dtype\": \"bfloat16\","
                + " \"max_position_embeddings\": 32768}\n");
        return dir.resolve("config.json");
    }

    /** 0 tokens or sequences was planned: "max_concurrency Infinity", "served_concurrency 0.00". */
    @Test
    void planRefusesZeroLengthsAndSequences() throws Exception {
        String config = qwen7b().toString();
        CliRun len = CliRun.of("plan", config, "--device", "910B4", "--max-model-len", "0");
        assertThat(len.exit()).isEqualTo(2);
        assertThat(len.out()).isEmpty();
        assertThat(len.err()).contains("--max-model-len 0: expected tokens, at least 1");
        CliRun seqs = CliRun.of("plan", config, "--device", "910B4", "--max-num-seqs", "0");
        assertThat(seqs.exit()).isEqualTo(2);
        assertThat(seqs.err()).contains("--max-num-seqs 0: expected sequences, at least 1");
        CliRun sweep = CliRun.of("plan", config, "--device", "910B4", "--sweep", "max-model-len=4096,0");
        assertThat(sweep.exit()).isEqualTo(2);
        assertThat(sweep.err()).contains("--sweep max-model-len=0: out of range");
    }

    /**
     * --sweep with vLLM's Python name, and the "fits" column against the length the plan used:
     * without --max-model-len, max_position_embeddings (32768 = 256 blocks of 128). At 0.55 the
     * KV budget holds some blocks but fewer than 256 (concurrency below 1): "no", where the row
     * said "yes" for any block at all while the plan's note said "does not fit"; at 0.9 one
     * request fits: "yes".
     */
    @Test
    void planSweepTakesVllmsPythonNameAndFitsAtTheModelsLength() throws Exception {
        CliRun r = CliRun.of("plan", qwen7b().toString(), "--device", "910B4", "--sweep", "gpu_memory_utilization=0.55,0.9");
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(r.out()).contains("sweep over gpu-memory-utilization:").containsPattern("\\n  0\\.55 .* 0\\.\\d\\d +no\\n")
                .containsPattern("\\n  0\\.9 .* yes\\n");
    }
}

package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hand-written lines for each phrasing and edge case. Byte values are worked out as
 * number x 2^30 (GiB, vLLM "GB"), x 2^20 (MiB, early "MB"), rounded half-up.
 */
class VllmLogParserTest {

    private static List<Observation> obs(String text) {
        return VllmLogParser.parse(text).observations();
    }

    private static final String WEIGHTS = "INFO 06-23 13:45:14 [model_runner.py:1000] Loading model weights took 5.7917 GB";
    // 5.7917 x 1,073,741,824 = 6,218,790,522.06
    private static final long WEIGHTS_BYTES = 6_218_790_522L;

    @ParameterizedTest
    @ValueSource(strings = {
        "\u001b[1;36m(VllmWorkerProcess pid=521)\u001b[0;0m ",   // raw ESC
        "^[[1;36m(VllmWorkerProcess pid=521)^[[0;0m ",             // caret notation (cat -v)
        "#033[1;36m(VllmWorkerProcess pid=521)#033[0;0m ",         // octal text (syslog)
        "\\033[1;36m(VllmWorkerProcess pid=521)\\033[0;0m ",       // escaped text
        "[1;36m(VllmWorkerProcess pid=521)[0;0m ",                 // ESC lost in a paste
        "(VllmWorkerProcess pid=521) "})                           // already clean
    void colourCodesInEveryFormAreRemovedFromTheProcessLabel(String prefix) {
        assertThat(obs(prefix + WEIGHTS)).extracting(x -> x.quantity().contractName(), Observation::bytes, x -> x.context().process(), x -> x.context().pid())
                .containsExactly(tuple("weights", WEIGHTS_BYTES, "VllmWorkerProcess pid=521", 521L));
    }

    /**
     * The two-word worker names of vllm/v1/executor/multiproc_executor.py: v0.8-v0.9
     * {@code _add_prefix(sys.stdout, f"VllmWorker rank={rank}", pid)}, v0.10.0-v0.10.1
     * {@code decorate_logs(f"VllmWorker {suffix}")} with suffix {@code PP{p}_TP{t}}, {@code TP{t}}
     * or {@code PP{p}}; _add_prefix writes {@code ({name} pid={pid}) } in cyan.
     */
    @ParameterizedTest
    @ValueSource(strings = {"VllmWorker TP0", "VllmWorker PP1_TP3", "VllmWorker PP1", "VllmWorker rank=0"})
    void twoWordWorkerNamesAreKeptAsTheProcessLabel(String name) {
        String line = "\u001b[1;36m(" + name + " pid=1234)\u001b[0;0m " + WEIGHTS;
        assertThat(obs(line)).extracting(x -> x.quantity().contractName(), Observation::bytes, x -> x.context().process(), x -> x.context().pid())
                .containsExactly(tuple("weights", WEIGHTS_BYTES, name + " pid=1234", 1234L));
    }

    @Test
    void debugRecordsAreTold() {
        // vLLM's logger header at DEBUG, with a cyan worker prefix, and the pre-v0.8 form without "["
        assertThat(VllmLogParser.parse("\u001b[1;36m(Worker_TP0 pid=7)\u001b[0;0m DEBUG 08-20 10:00:41 [gpu_worker.py:261] x\n")
                .debugRecords()).isTrue();
        assertThat(VllmLogParser.parse("DEBUG 02-29 19:21:45 model_runner.py:90] x\n").debugRecords()).isTrue();
        // the word in a message, or a line without the logger's time stamp, is no DEBUG record
        assertThat(VllmLogParser.parse("INFO 08-20 10:00:41 [envs.py:1] VLLM_LOGGING_LEVEL=DEBUG\n"
                + "DEBUG fake-vllm VLLM_LOGGING_LEVEL=DEBUG\n" + WEIGHTS + "\n").debugRecords()).isFalse();
    }

    @Test
    void ordinaryWordsInParenthesesAreNoLabel() {
        // only the second words vLLM writes (rank=N, PPn_TPn) make a two-word label
        assertThat(obs("(see worker pid=77) " + WEIGHTS)).extracting(x -> x.context().process()).containsExactly((String) null);
    }

    @Test
    void carriageReturnGluedProgressBarBeforeOrAfterTheLogLine() {
        String before = "Loading safetensors checkpoint shards: 100% Completed | 2/2 [00:01<00:00]\r" + WEIGHTS + "\n";
        String after = WEIGHTS + "\rProcessed prompts:   0%|          | 0/1 [00:00<?, ?it/s]\n";
        assertThat(obs(before)).extracting(Observation::line, Observation::bytes).containsExactly(tuple(1, WEIGHTS_BYTES));
        assertThat(obs(after)).extracting(Observation::line, Observation::bytes).containsExactly(tuple(1, WEIGHTS_BYTES));
    }

    @Test
    void literalCaretMAndCrlfEndings() {
        String text = "first line^M\r\n" + WEIGHTS + "^M\r\n";
        assertThat(obs(text)).extracting(Observation::line, Observation::bytes).containsExactly(tuple(2, WEIGHTS_BYTES));
    }

    @Test
    void loneCrKeepsTheLineNumberOfTheTextLine() {
        // TextLines: a lone CR stays inside the line, so the figure is on line 2
        String text = "x\nbar 10%\rbar 100%\r" + WEIGHTS + "\n";
        assertThat(obs(text)).extracting(Observation::line).containsExactly(2);
    }

    @Test
    void lineNumbersAgreeWithTextLines() {
        String text = "a\r\nb\rc\n\n" + WEIGHTS + "\r\n\n" + WEIGHTS;
        // TextLines gives a, b<CR>c, "", WEIGHTS, "", WEIGHTS: figures on lines 4 and 6
        assertThat(io.hbmledger.evidence.TextLines.split(text)).hasSize(6);
        assertThat(obs(text)).extracting(Observation::line).containsExactly(4, 6);
    }

    @Test
    void prefixGluedAfterATqdmBarWithoutCr() {
        String text = "Processed prompts:   0%|   | 0/1 [00:00<?, ?it/s](EngineCore_0 pid=1440043) INFO 09-02 03:32:19 "
                + "[kv_cache_utils.py:850] GPU KV cache size: 252,800 tokens";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::value, x -> x.context().process())
                .containsExactly(tuple("kv_cache_tokens", 252_800.0, "EngineCore_0 pid=1440043"));
    }

    @Test
    void rayPrefixKeepsTheIpInTheLabel() {
        String text = "(RayWorkerWrapper pid=1234, ip=192.0.2.7) INFO 01-02 03:04:05 worker.py:1] # GPU blocks: 100, # CPU blocks: 20";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::value, x -> x.context().process())
                .containsExactly(tuple("gpu_blocks", 100.0, "RayWorkerWrapper pid=1234, ip=192.0.2.7"),
                        tuple("cpu_blocks", 20.0, "RayWorkerWrapper pid=1234, ip=192.0.2.7"));
    }

    @Test
    void thousandsSeparatorsInTokensAndConcurrency() {
        String text = "INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 1,158,656 tokens\n"
                + "INFO 04-24 16:33:13 [kv_cache_utils.py:637] Maximum concurrency for 131,072 tokens per request: 8.84x\n";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::value, x -> x.context().tokensPerRequest(), Observation::text)
                .containsExactly(tuple("kv_cache_tokens", 1_158_656.0, null, "1,158,656"),
                        tuple("max_concurrency", 8.84, 131_072, "8.84"));
    }

    @Test
    void malformedThousandsSeparatorIsAWarningNotAValue() {
        VllmLogParser.Result r = VllmLogParser.parse("INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 15,86 tokens");
        assertThat(r.observations()).isEmpty();
        assertThat(r.warnings()).singleElement().asString().startsWith("line 1:").contains("kv_cache_tokens", "'15,86'");
    }

    @Test
    void unreadableNumberIsAbsentWithAWarningNeverZero() {
        VllmLogParser.Result r = VllmLogParser.parse("x\nINFO 01-01 00:00:00 [gpu_worker.py:1] Available KV cache memory: nan GiB\n");
        assertThat(r.observations()).isEmpty();
        assertThat(r.warnings()).singleElement().asString().startsWith("line 2:").contains("'nan'");
    }

    @Test
    void fractionalNumberWithoutUnitIsNotGuessed() {
        VllmLogParser.Result r = VllmLogParser.parse("model weights take 14.96; non_torch_memory takes 0.20GiB");
        assertThat(r.observations()).extracting(x -> x.quantity().contractName()).containsExactly("non_torch");
        assertThat(r.warnings()).singleElement().asString().contains("weights");
    }

    @Test
    void v1AvailableKvCacheMayBeNegative() {
        // -2.81 x 2^30 = -3,017,214,525.44
        assertThat(obs("(EngineCore_0 pid=9) INFO 09-26 11:02:09 [gpu_worker.py:298] Available KV cache memory: -2.81 GiB"))
                .extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::text)
                .containsExactly(tuple("kv_cache_available", -3_017_214_525L, "-2.81 GiB"));
    }

    @Test
    void freeMemoryOnDeviceSummaryOfV1() {
        String text = "(Worker_TP1 pid=1806414) INFO 10-23 15:14:56 [gpu_worker.py:391] Free memory on device (139.21/139.81 GiB) on startup. "
                + "Desired GPU memory utilization is (0.9, 125.83 GiB). Actual usage is 74.28 GiB for weight, 5.58 GiB for peak activation, "
                + "1.38 GiB for non-torch memory, and 2.37 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
                + "`--kv-cache-memory=45175492096` to fit into requested memory, or `--kv-cache-memory=59540753920` to fully utilize gpu memory. "
                + "Current kv cache memory in use is 47878721024 bytes.";
        VllmLogParser.Result r = VllmLogParser.parse(text);
        assertThat(r.warnings()).isEmpty();
        // 139.21 -> 149,475,599,319.04; 139.81 -> 150,119,844,413.44; 125.83 -> 135,108,933,713.92;
        // 74.28 -> 79,757,542,686.72; 5.58 -> 5,991,479,377.92; 1.38 -> 1,481,763,717.12; 2.37 -> 2,544,768,122.88
        assertThat(r.observations()).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value)
                .containsExactlyInAnyOrder(
                        tuple("free_memory_at_start", 149_475_599_319L, null),
                        tuple("total_memory", 150_119_844_413L, null),
                        tuple("memory_utilization", null, 0.9),
                        tuple("instance_budget", 135_108_933_714L, null),
                        tuple("weights", 79_757_542_687L, null),
                        tuple("activation_peak", 5_991_479_378L, null),
                        tuple("non_torch", 1_481_763_717L, null),
                        tuple("graph_memory", 2_544_768_123L, null),
                        tuple("kv_cache_suggested", 45_175_492_096L, null));
        assertThat(r.observations()).allSatisfy(o -> assertThat(o.context().process()).isEqualTo("Worker_TP1 pid=1806414"));
    }

    @Test
    void freeMemoryRefusalOnStartup() {
        String text = "ValueError: Free memory on device cuda:0 (27.28/31.86 GiB) on startup is less than desired GPU memory utilization (0.97, 30.9 GiB).";
        // 27.28 x 2^30 = 29,291,676,958.72; 31.86 -> 34,209,414,512.64; 30.9 -> 33,178,622,361.6
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value)
                .containsExactlyInAnyOrder(
                        tuple("free_memory_at_start", 29_291_676_959L, null),
                        tuple("total_memory", 34_209_414_513L, null),
                        tuple("memory_utilization", null, 0.97),
                        tuple("instance_budget", 33_178_622_362L, null),
                        tuple("memory_failure", null, 1.0));
    }

    @Test
    void modelLoadingWithShortSecondsUnit() {
        // 55.22 x 2^30 = 55 x 2^30 + 0.22 x 2^30 = 59,055,800,320 + 236,223,201.28 = 59,292,023,521.28
        assertThat(obs("(EngineCore pid=1) INFO 01-01 00:00:00 [gpu_model_runner.py:1] Model loading took 55.22 GiB memory and 20.3s"))
                .extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value)
                .containsExactly(tuple("weights", 59_292_023_521L, null), tuple("weights_load_seconds", null, 20.3));
    }

    @Test
    void graphCapturingFinished() {
        // 0.45 x 2^30 = 483,183,820.8
        assertThat(obs("(Worker_TP0 pid=1) INFO 10-23 15:14:56 [gpu_model_runner.py:3118] Graph capturing finished in 25 secs, took 0.45 GiB"))
                .extracting(x -> x.quantity().contractName(), Observation::bytes).containsExactly(tuple("graph_memory", 483_183_821L));
    }

    @Test
    void memoryProfilingResultsOneLinePairs() {
        String text = "INFO 12-25 14:00:28 worker.py:265] Memory profiling results: duration=18.41 seconds, total_gpu_memory=191.98GiB, "
                + "initial_memory_usage=71.40GiB, peak_torch_memory=86.79GiB, memory_usage_post_profile=73.77GiB, non_torch_memory=6.07GiB, "
                + "kv_cache_size=95.28GiB, gpu_memory_utilization=0.98.";
        // 191.98 x 2^30 = 191 x 2^30 + 0.98 x 2^30 = 205,084,688,384 + 1,052,266,987.52 = 206,136,955,371.52; 6.07 -> 6,517,612,871.68; 95.28 -> 102,306,120,990.72
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value)
                .containsExactlyInAnyOrder(
                        tuple("profiling_seconds", null, 18.41),
                        tuple("total_memory", 206_136_955_372L, null),
                        tuple("non_torch", 6_517_612_872L, null),
                        tuple("kv_cache_available", 102_306_120_991L, null),
                        tuple("memory_utilization", null, 0.98),
                        // device memory in use (every process) before and after the profile run:
                        // 71.40 x 2^30 = 76,665,166,233.6; 73.77 x 2^30 = 79,209,934,356.48
                        tuple("initial_memory_usage", 76_665_166_234L, null),
                        tuple("memory_usage_post_profile", 79_209_934_356L, null));
    }

    @Test
    void durationOutsideTheProfilingTableIsNotProfiling() {
        String text = "INFO 12-13 19:54:18 worker.py:243] Memory profiling results:\n"
                + "INFO 12-13 19:54:18 worker.py:243] duration     0.75 seconds\n"
                + "INFO 12-13 19:54:19 api_server.py:1] something else\n"
                + "INFO 12-13 19:54:20 api_server.py:1] duration     9.00 seconds\n";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::line).containsExactly(tuple("profiling_seconds", 2));
    }

    @Test
    void profilingTablesOfInterleavedWorkersAreKeptApart() {
        String text = "(VllmWorkerProcess pid=1) INFO 12-13 19:54:18 worker.py:243] Memory profiling results:\n"
                + "(VllmWorkerProcess pid=2) INFO 12-13 19:54:18 worker.py:243] something else\n"
                + "(VllmWorkerProcess pid=1) INFO 12-13 19:54:18 worker.py:243] duration     0.75 seconds\n"
                + "(VllmWorkerProcess pid=2) INFO 12-13 19:54:18 worker.py:243] duration     0.99 seconds\n";
        assertThat(obs(text)).extracting(x -> x.context().process(), Observation::value)
                .containsExactly(tuple("VllmWorkerProcess pid=1", 0.75));
    }

    @Test
    void v0SummaryWithoutWorkerPrefix() {
        String text = "INFO 01-16 09:40:00 worker.py:238] Memory profiling takes 4.20 seconds\n"
                + "the current vLLM instance can use total_gpu_memory (79.22GiB) x gpu_memory_utilization (0.90) = 71.29GiB\n";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::line)
                .containsExactly(tuple("profiling_seconds", 1), tuple("total_memory", 2), tuple("memory_utilization", 2), tuple("instance_budget", 2));
    }

    @Test
    void ascendAvailableMemoryIsPlainBytesEvenWithAFraction() {
        // usable_memory_size = total * utilization - peak is a float in some vllm-ascend versions
        assertThat(obs("INFO 03-11 06:18:02 [worker_v1.py:190] Available memory: 10700878950.4, total memory: 31662800896"))
                .extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::text)
                .containsExactly(tuple("available_memory", 10_700_878_950L, "10700878950.4"),
                        tuple("total_memory", 31_662_800_896L, "31662800896"));
    }

    @Test
    void earlyMegabytesAreMebibytes() {
        // 244.61 x 1,048,576 = 256,492,175.36
        assertThat(obs(">> INFO 02-29 19:21:45 model_runner.py:90] Loading model weights took 244.61 MB"))
                .extracting(Observation::bytes).containsExactly(256_492_175L);
    }

    @Test
    void utilizationFromArgsAndCommandLine() {
        String text = "INFO 01-01 00:00:00 [api_server.py:1] args: Namespace(model='m', gpu_memory_utilization=0.92, swap_space=4)\n"
                + "vllm serve m --gpu-memory-utilization 0.85\n";
        assertThat(obs(text)).filteredOn(o -> o.quantity() == Quantity.MEMORY_UTILIZATION)
                .extracting(Observation::value, Observation::line).containsExactly(tuple(0.92, 1), tuple(0.85, 2));
    }

    @Test
    void newStyleCudaOutOfMemory() {
        String text = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
                + "of which 1.06 GiB is free. Process 597697 has 692.00 MiB memory in use. Of the allocated memory 75.20 GiB is allocated "
                + "by PyTorch, and 1.50 GiB is reserved by PyTorch but unallocated.";
        // 2.00 -> 2,147,483,648; 79.15 -> 84,986,665,369.6; 1.06 -> 1,138,166,333.44; 75.20 -> 80,745,385,164.8;
        // 1.50 GiB -> 1,610,612,736; 692.00 MiB -> 725,614,592
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::bytes)
                .containsExactly(tuple("oom_tried", 2_147_483_648L), tuple("oom_total_capacity", 84_986_665_370L),
                        tuple("oom_allocated", 80_745_385_165L), tuple("oom_free", 1_138_166_333L),
                        tuple("oom_reserved_unallocated", 1_610_612_736L), tuple("oom_process_in_use", 725_614_592L),
                        tuple("memory_failure", null));
    }

    @Test
    void oldStyleOutOfMemoryWithMebibytes() {
        String text = "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 23.69 GiB total capacity; "
                + "22.10 GiB already allocated; 300.50 MiB free; 22.80 GiB reserved in total by PyTorch)";
        // 512 MiB = 536,870,912; 23.69 GiB -> 24,696,061,952 + 740,881,858.56 = 25,436,943,810.56; 22.10 GiB -> 23,729,694,310.4;
        // 300.50 MiB -> 315,097,088; 22.80 GiB -> 24,481,313,587.2
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::bytes)
                .containsExactly(tuple("oom_tried", 536_870_912L), tuple("oom_total_capacity", 25_436_943_811L),
                        tuple("oom_allocated", 23_729_694_310L), tuple("oom_free", 315_097_088L),
                        tuple("oom_reserved", 24_481_313_587L), tuple("memory_failure", null));
    }

    @Test
    void freeOutsideAnOomMessageIsNothing() {
        assertThat(obs("INFO 01-01 00:00:00 [x.py:1] 5.96 GiB free on host; 3 GiB reserved in total by PyTorch")).isEmpty();
    }

    @Test
    void errorCodesAndSourceLinesAreNotQuantities() {
        assertThat(obs("(VllmWorkerProcess pid=1) ERROR 04-17 15:30:42 [multiproc_worker_utils.py:238] HCCL function error: "
                + "HcclCommInitRootInfo(numRanks, &rootInfo, rank, &(comm->hcclComm_)), error code is 7")).isEmpty();
    }

    @Test
    void configDumpOverridesWithoutNumbersAreSilent() {
        VllmLogParser.Result r = VllmLogParser.parse("INFO 01-01 00:00:00 [config.py:1] cache: num_gpu_blocks=None, num_gpu_blocks_override=None");
        assertThat(r.observations()).isEmpty();
        assertThat(r.warnings()).isEmpty();
    }

    @Test
    void tracebackSourceLinesAreNeitherValuesNorWarnings() {
        String text = "ERROR 03-07 09:51:00 worker_base.py:581]     available_kv_cache_memory = (memory_for_current_instance -\n"
                + "ERROR 03-07 09:51:00 worker_base.py:581]     non_torch_memory = result.non_torch_increase\n";
        VllmLogParser.Result r = VllmLogParser.parse(text);
        assertThat(r.observations()).isEmpty();
        assertThat(r.warnings()).isEmpty();
    }

    @Test
    void aValueCutByLineWrapIsNotReadAsBytes() {
        // a paste wrapped "non_torch_memory=6.07GiB" after the 6: vLLM always writes GiB here
        VllmLogParser.Result r = VllmLogParser.parse("INFO 12-25 14:00:28 worker.py:265] Memory profiling results: non_torch_memory=6\n.07GiB, kv_cache_size=95.28GiB\n");
        assertThat(r.observations()).extracting(x -> x.quantity().contractName()).containsExactly("kv_cache_available");
        assertThat(r.warnings()).singleElement().asString().startsWith("line 1:").contains("non_torch", "'6'");
    }

    @Test
    void ascendDebugAvailableKvCacheMemoryInBytes() {
        assertThat(obs("DEBUG 01-01 00:00:00 [worker_v1.py:1] rank=0 available_kv_cache_memory=10700878950 gpu_memory_utilization=0.9"))
                .extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::value)
                .containsExactly(tuple("kv_cache_available", 10_700_878_950L, null), tuple("memory_utilization", null, 0.9));
    }

    @Test
    void overriddenBlockCountIsNotTheOneUsed() {
        String text = "INFO 01-01 00:00:00 [worker.py:1] Overriding num_gpu_blocks=6001 with num_gpu_blocks_override=512\n"
                + "INFO 01-01 00:00:00 [executor_base.py:1] # CUDA blocks: 512, # CPU blocks: 1638\n";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::value, Observation::line)
                .containsExactly(tuple("gpu_blocks", 512.0, 2), tuple("cpu_blocks", 1638.0, 2), tuple("device_type", 1.0, 2));
    }

    /**
     * The first lines of a vLLM 0.11.1 ROCm image's log as posted in an issue: the platform vLLM
     * detected is the device type, on its own line.
     */
    @Test
    void detectedPlatformIsTheDeviceType() {
        String text = "INFO 11-28 23:05:28 [__init__.py:225] Automatically detected platform rocm.\n"
                + "(APIServer pid=13) INFO 11-28 23:05:33 [api_server.py:1876] vLLM API server version 0.11.1rc2.dev141+g38f225c2a\n";
        assertThat(obs(text)).filteredOn(o -> o.quantity() == Quantity.DEVICE_TYPE)
                .extracting(Observation::line, Observation::text).containsExactly(tuple(1, "rocm"));
    }

    @Test
    void bareRayPidPrefix() {
        assertThat(obs("(pid=4242, ip=192.0.2.9) " + WEIGHTS)).extracting(x -> x.context().process(), x -> x.context().pid())
                .containsExactly(tuple("pid=4242, ip=192.0.2.9", 4242L));
    }

    @Test
    void v1MemoryProfilingResultRepr() {
        String text = "(EngineCore_DP0 pid=7) DEBUG 07-17 01:02:40 [gpu_worker.py:270] Initial free memory: 43.90 GiB; Requested memory: 0.95 (util), 42.17 GiB\n"
                + "(EngineCore_DP0 pid=7) DEBUG 07-17 01:02:45 [gpu_worker.py:298] Memory profiling takes 11.20 seconds. Total non KV cache memory: 20.19GiB; "
                + "torch peak memory increase: 1.42GiB; non-torch forward increase memory: 0.51GiB; weights memory: 18.26GiB.\n"
                + "(EngineCore_DP0 pid=7) DEBUG 07-17 01:02:46 [gpu_worker.py:300] CUDA graph pool memory: 0.50 GiB (actual), 0.80 GiB (estimated), difference: 0.30 GiB (37.5%).\n";
        // 43.90 x 2^30 = 43 x 2^30 + 0.9 x 2^30 = 46,170,898,432 + 966,367,641.6 = 47,137,266,073.6; 42.17 -> 45,279,692,718.08; 1.42 -> 1,524,713,390.08;
        // 0.51 -> 547,608,330.24; 18.26 -> 19,606,525,706.24; 0.50 -> 536,870,912
        assertThat(obs(text)).extracting(x -> x.quantity().contractName(), Observation::line, Observation::bytes, Observation::value)
                .containsExactlyInAnyOrder(
                        tuple("free_memory_at_start", 1, 47_137_266_074L, null),
                        tuple("memory_utilization", 1, null, 0.95),
                        tuple("instance_budget", 1, 45_279_692_718L, null),
                        tuple("profiling_seconds", 2, null, 11.2),
                        tuple("activation_peak", 2, 1_524_713_390L, null),
                        tuple("non_torch", 2, 547_608_330L, null),
                        tuple("weights", 2, 19_606_525_706L, null),
                        // 20.19 x 2^30 = 21,678,847,426.56: weights + torch peak + non-torch, as printed
                        tuple("non_kv_cache_memory", 2, 21_678_847_427L, null),
                        tuple("graph_memory", 3, 536_870_912L, null));
    }

    @Test
    void consumedMemoryIsNotWeights() {
        // v0.11+ variant: "16.66 GiB for consumed memory (weights + non-torch)" is a sum, not the weights
        String text = "Free memory on device (30.86/31.36 GiB) on startup. Desired GPU memory utilization is (0.9, 28.22 GiB). "
                + "Actual usage is 16.66 GiB for consumed memory (weights + non-torch), 1.20 GiB for peak activation, "
                + "and 0.50 GiB for CUDAGraph memory.";
        assertThat(obs(text)).extracting(x -> x.quantity().contractName())
                .containsExactlyInAnyOrder("memory_utilization", "instance_budget", "activation_peak", "graph_memory",
                        "free_memory_at_start", "total_memory");
    }

    // --- detection ---

    private static FileHead head(String text) {
        return new FileHead("x", text.getBytes(StandardCharsets.UTF_8), text.length());
    }

    @Test
    void detectsAnExcerptThatStartsMidWay() {
        assertThat(new VllmLogReader().detect(head("  the rest of the memory reserved for KV Cache is 1.57GiB.\n"))).contains(EvidenceFormat.VLLM_LOG);
        assertThat(new VllmLogReader().detect(head("^[[1;36m(VllmWorkerProcess pid=1)^[[0;0m ERROR 04-17 15:30:42 [x.py:238] boom\n")))
                .contains(EvidenceFormat.VLLM_LOG);
    }

    @Test
    void doesNotClaimNpuSmiTablesOrCsv() {
        String npuSmi = "+------------------------------------------------------------------------------------------------+\n"
                + "| npu-smi 23.0.6                   Version: 23.0.6                                               |\n"
                + "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
                + "| 0     910B3               | OK            | 93.6        36                0    / 0             |\n"
                + "| 0                         | 0000:C1:00.0  | 0           0    / 0          3402 / 65536         |\n";
        String csv = "Device_id,Component,Timestamp(us),Total Reserved(MB)\nNPU:0,APP,1700000000000000,1024\n";
        assertThat(new VllmLogReader().detect(head(npuSmi))).isEmpty();
        assertThat(new VllmLogReader().detect(head(csv))).isEmpty();
        assertThat(new VllmLogReader().detect(new FileHead("b", new byte[] {0, 1, 2, 'I', 'N', 'F', 'O'}, 7))).isEmpty();
    }
}

package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every vLLM log of the real-input corpus, read through the reader registry (so detection by
 * content is checked too). Expected values were read off the files by hand. Unit rule used in
 * the comments: GiB and vLLM's "GB" are x 2^30 = 1,073,741,824; early-2024 "MB" is x 2^20 =
 * 1,048,576; bytes are rounded half-up; vllm-ascend "Available memory: N, total memory: M"
 * are plain bytes.
 */
class VllmLogCorpusTest {

    private static EvidenceFile read(String name) throws Exception {
        Path p = Corpus.file("vllm-log/" + name);
        return EvidenceReaders.all().read(p, name);
    }

    private static List<Observation> of(EvidenceFile f, String quantity) {
        return f.observations().stream().filter(o -> o.quantity().contractName().equals(quantity)).toList();
    }

    @Test
    void everyCorpusLogIsRecognisedByContent() throws IOException {
        Path dir = Corpus.root().resolve("vllm-log");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                EvidenceFile f;
                try {
                    f = EvidenceReaders.all().read(p, p.getFileName().toString());
                } catch (Exception e) {
                    throw new AssertionError(p + ": " + e.getMessage(), e);
                }
                assertThat(f.format()).as(p.toString()).isEqualTo(EvidenceFormat.VLLM_LOG);
            }
        }
    }

    @Test
    void newestWordingModelLoadingTookGibMemoryAndSeconds() throws Exception {
        EvidenceFile f = read("vllm-38820_worker_tp0_model_loading_GiB_memory_and.log");
        // line 9 "Model loading took 12.66 GiB memory and 31.657031 seconds":
        // 12.66 x 1,073,741,824 = 13,593,571,491.84 -> 13,593,571,492
        assertThat(of(f, "weights")).extracting(Observation::line, Observation::bytes, Observation::text, x -> x.context().process())
                .containsExactly(tuple(9, 13_593_571_492L, "12.66 GiB", "Worker_TP0 pid=34322"));
        assertThat(of(f, "weights_load_seconds")).extracting(Observation::line, Observation::value)
                .containsExactly(tuple(8, 24.84), tuple(9, 31.657031));
        assertThat(of(f, "weights").get(0).context().pid()).isEqualTo(34322L);
        // the "budget of 8192 tokens" encoder-cache line is no KV cache figure
        assertThat(of(f, "kv_cache_tokens")).isEmpty();
        assertThat(of(f, "kv_cache_available")).isEmpty();
        assertThat(of(f, "gpu_blocks")).isEmpty();
    }

    @Test
    void ascendV0NpuBlocksWithProgressDotGlued() throws Exception {
        EvidenceFile f = read("vllm-ascend-1425_310P3_qwen2.5-3B_v0_npu_blocks_dot_glued.log");
        // line 22 "Loading model weights took 5.7917 GB" (GB = GiB): 5.7917 x 2^30 = 6,218,790,522.06
        assertThat(of(f, "weights")).extracting(Observation::line, Observation::bytes, x -> x.context().process())
                .containsExactly(tuple(22, 6_218_790_522L, null));
        assertThat(of(f, "weights_load_seconds")).extracting(Observation::value).containsExactly(1.56);
        // line 24 ".INFO ... # npu blocks: 466, # CPU blocks: 1820"
        assertThat(of(f, "gpu_blocks")).extracting(Observation::line, Observation::value).containsExactly(tuple(24, 466.0));
        assertThat(of(f, "cpu_blocks")).extracting(Observation::value).containsExactly(1820.0);
        assertThat(of(f, "max_concurrency")).extracting(Observation::value, x -> x.context().tokensPerRequest())
                .containsExactly(tuple(1.82, 32768));
        assertThat(of(f, "kv_cache_available")).isEmpty();
        assertThat(of(f, "activation_peak")).isEmpty();
    }

    @Test
    void rayTp16NpuOutOfMemory() throws Exception {
        EvidenceFile f = read("vllm-ascend-264_deepseek-r1_ray_tp16_npu_oom.log");
        String proc = "NPURayWorkerWrapper pid=399601, ip=192.0.2.10";
        // line 16: 17.50 GiB x 2^30 = 18,790,481,920; 60.97 -> 65,466,039,009.28; 53.74 ->
        // 57,702,885,621.76; 5.96 -> 6,399,501,271.04; 54.36 -> 58,368,605,552.64
        assertThat(f.observations()).extracting(x -> x.quantity().contractName(), Observation::bytes, Observation::line, x -> x.context().process())
                .containsExactly(
                        tuple("oom_tried", 18_790_481_920L, 16, proc),
                        tuple("oom_total_capacity", 65_466_039_009L, 16, proc),
                        tuple("oom_allocated", 57_702_885_622L, 16, proc),
                        tuple("oom_free", 6_399_501_271L, 16, proc),
                        tuple("oom_reserved", 58_368_605_553L, 16, proc),
                        // the same line is the failure itself
                        tuple("memory_failure", null, 16, proc));
        // no start or weights before it in the excerpt, but the traceback on lines 10-15 runs
        // determine_num_available_blocks -> profile_run: the memory profile
        assertThat(of(f, "memory_failure")).extracting(x -> x.context().component()).containsExactly("memory_profiling");
    }

    @Test
    void ascendV1Eagle3Startup() throws Exception {
        EvidenceFile f = read("vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log");
        String proc = "EngineCore_0 pid=1440043";
        // line 8: non-default args {'gpu_memory_utilization': 0.8, ...}
        assertThat(of(f, "memory_utilization")).extracting(Observation::line, Observation::value).containsExactly(tuple(8, 0.8));
        assertThat(of(f, "weights_load_seconds")).extracting(Observation::line, Observation::value, x -> x.context().process())
                .containsExactly(tuple(38, 2.31, proc), tuple(44, 0.6, proc));
        // line 46 "15.7847 GB": 15.7847 x 2^30 = 16,948,692,569.29
        assertThat(of(f, "weights")).extracting(Observation::bytes).containsExactly(16_948_692_569L);
        // line 47 plain bytes
        assertThat(of(f, "available_memory")).extracting(Observation::bytes).containsExactly(34_184_553_369L);
        assertThat(of(f, "total_memory")).extracting(Observation::bytes).containsExactly(65_464_696_832L);
        assertThat(of(f, "kv_cache_tokens")).extracting(Observation::value, Observation::text).containsExactly(tuple(252_800.0, "252,800"));
        assertThat(of(f, "max_concurrency")).extracting(Observation::value, x -> x.context().tokensPerRequest()).containsExactly(tuple(1975.0, 128));
        assertThat(of(f, "graph_memory")).isEmpty();
        assertThat(of(f, "gpu_blocks")).isEmpty();
    }

    @Test
    void ascendV1MooncakeBytesAndBlocks() throws Exception {
        EvidenceFile f = read("vllm-ascend-5044_v1_mooncake_available_memory_bytes.log");
        // 15.2684 GB x 2^30 = 16,394,319,665.56 -> 16,394,319,666
        assertThat(of(f, "weights")).extracting(Observation::bytes).containsExactly(16_394_319_666L);
        assertThat(of(f, "available_memory")).extracting(Observation::bytes).containsExactly(10_700_878_950L);
        assertThat(of(f, "total_memory")).extracting(Observation::bytes).containsExactly(31_662_800_896L);
        assertThat(of(f, "kv_cache_tokens")).extracting(Observation::value).containsExactly(72_448.0);
        assertThat(of(f, "max_concurrency")).extracting(Observation::value, x -> x.context().tokensPerRequest()).containsExactly(tuple(7.16, 10_000));
        // "num_blocks: 566": 566 blocks x 128 tokens = 72,448 = the KV token count
        assertThat(of(f, "gpu_blocks")).extracting(Observation::line, Observation::value).containsExactly(tuple(16, 566.0));
        assertThat(of(f, "cpu_blocks")).isEmpty();
    }

    @Test
    void caretNotationLogWithoutFiguresGivesNothing() throws Exception {
        EvidenceFile f = read("vllm-ascend-pr429_caret_notation_ansi_and_CR.log");
        // "error code is 7" and "line 232" are not quantities
        assertThat(f.observations()).isEmpty();
        assertThat(f.warnings()).hasSize(1);
    }

    @Test
    void memoryProfilingResultsTableTwiceSecondTruncated() throws Exception {
        EvidenceFile f = read("vllm-pr10511_memory_profiling_results_table_truncated.log");
        // 79.22GiB -> 85,061,827,297.28; 71.29 -> 76,547,054,632.96; 14.96 -> 16,063,177,687.04;
        // 7.48 -> 8,031,588,843.52; 1.79 -> 1,921,997,864.96; 3.58 -> 3,843,995,729.92;
        // 1.26 -> 1,352,914,698.24; 53.29 -> 57,219,701,800.96
        assertThat(of(f, "profiling_seconds")).extracting(Observation::line, Observation::value).containsExactly(tuple(3, 0.75), tuple(14, 3.49));
        assertThat(of(f, "total_memory")).extracting(Observation::line, Observation::bytes)
                .containsExactly(tuple(4, 85_061_827_297L), tuple(15, 85_061_827_297L));
        assertThat(of(f, "memory_utilization")).extracting(Observation::line).containsExactly(5, 16);
        assertThat(of(f, "instance_budget")).extracting(Observation::bytes).containsExactly(76_547_054_633L, 76_547_054_633L);
        assertThat(of(f, "weights")).extracting(Observation::bytes).containsExactly(16_063_177_687L, 8_031_588_844L);
        assertThat(of(f, "non_torch")).extracting(Observation::bytes).containsExactly(1_921_997_865L, 3_843_995_730L);
        assertThat(of(f, "activation_peak")).extracting(Observation::bytes).containsExactly(1_352_914_698L, 1_352_914_698L);
        // run 2's available_kv_cache_memory (line 21) has no value: absent, with a warning
        assertThat(of(f, "kv_cache_available")).extracting(Observation::line, Observation::bytes).containsExactly(tuple(10, 57_219_701_801L));
        assertThat(f.warnings()).anySatisfy(w -> assertThat(w).startsWith("line 21:"));
    }

    @Test
    void v0SummaryWithCudaBlocks() throws Exception {
        EvidenceFile f = read("vllm-pr12126_llama3.2-11B-vision_cuda_blocks.log");
        // 19.86 -> 21,324,512,624.64; 0.16 -> 171,798,691.84; 36.63 -> 39,331,163,013.12;
        // 14.65 -> 15,730,317,721.6
        assertThat(f.observations()).extracting(x -> x.quantity().contractName(), Observation::line, Observation::bytes, Observation::value)
                .containsExactly(
                        tuple("total_memory", 1, 85_061_827_297L, null),
                        tuple("memory_utilization", 1, null, 0.9),
                        tuple("instance_budget", 1, 76_547_054_633L, null),
                        tuple("weights", 2, 21_324_512_625L, null),
                        tuple("non_torch", 2, 171_798_692L, null),
                        tuple("activation_peak", 2, 39_331_163_013L, null),
                        tuple("kv_cache_available", 2, 15_730_317_722L, null),
                        tuple("gpu_blocks", 3, null, 6001.0),
                        tuple("cpu_blocks", 3, null, 1638.0),
                        // "# CUDA blocks": the platform's device name, CUDA (text "cuda")
                        tuple("device_type", 3, null, 1.0));
    }

    @Test
    void interleavedTpWorkersKeepTheirOwnFigures() throws Exception {
        EvidenceFile f = read("vllm-pr14447_tp_workers_interleaved_v0_summary.log");
        // pid 521's summary is alone on line 1: its total/budget/profiling lines are outside the excerpt
        List<Observation> w521 = f.observations().stream().filter(o -> "VllmWorkerProcess pid=521".equals(o.context().process())).toList();
        assertThat(w521).extracting(x -> x.quantity().contractName())
                .containsExactly("weights", "non_torch", "activation_peak", "kv_cache_available");
        // 21.21 -> 22,774,064,087.04; 1.57 -> 1,685,774,663.68
        assertThat(w521).extracting(Observation::bytes).containsExactly(22_774_064_087L, 214_748_365L, 397_284_475L, 1_685_774_664L);
        // 23.58 -> 25,318,832,209.92; 23.35 -> 25,071,871,590.4
        for (String pid : List.of("507", "577")) {
            List<Observation> w = f.observations().stream().filter(o -> ("VllmWorkerProcess pid=" + pid).equals(o.context().process())).toList();
            assertThat(w).extracting(x -> x.quantity().contractName()).containsExactly("profiling_seconds", "total_memory",
                    "memory_utilization", "instance_budget", "weights", "non_torch", "activation_peak", "kv_cache_available");
            assertThat(w.get(1).bytes()).isEqualTo(25_318_832_210L);
            assertThat(w.get(2).value()).isEqualTo(0.99);
            assertThat(w.get(3).bytes()).isEqualTo(25_071_871_590L);
        }
        assertThat(of(f, "profiling_seconds")).extracting(Observation::value).containsExactly(17.59, 17.56);
    }

    @Test
    void earlyV1WithoutMemorySummary() throws Exception {
        EvidenceFile f = read("vllm-pr17122_v1_llama3.1-8B_L40S_no_memory_summary.log");
        // 14.9889 GiB x 2^30 = 16,094,208,825.75 -> 16,094,208,826
        assertThat(f.observations()).extracting(x -> x.quantity().contractName(), Observation::line, Observation::bytes, Observation::value)
                .containsExactly(
                        tuple("weights_load_seconds", 1, null, 2.95),
                        tuple("weights", 2, 16_094_208_826L, null),
                        tuple("weights_load_seconds", 2, null, 3.65217),
                        tuple("kv_cache_tokens", 7, null, 158_656.0),
                        tuple("max_concurrency", 8, null, 4.84));
        assertThat(of(f, "max_concurrency").get(0).context().tokensPerRequest()).isEqualTo(32_768);
    }

    @Test
    void early2024WeightsInMegabytes() throws Exception {
        EvidenceFile f = read("vllm-pr3120_opt-125m_weights_in_MB_gpu_blocks.log");
        // line 3 ">> INFO ... Loading model weights took 244.61 MB": MB = MiB,
        // 244.61 x 1,048,576 = 256,492,175.36 -> 256,492,175
        assertThat(f.observations()).extracting(x -> x.quantity().contractName(), Observation::line, Observation::bytes, Observation::value, Observation::text)
                .containsExactly(
                        // line 1 "Initializing an LLM engine with config: ...": a server start
                        tuple("server_start", 1, null, 1.0, "Initializing an LLM engine"),
                        // the same line's config: a V0 engine (no V1 in the phrase), model='facebook/opt-125m',
                        // max_seq_len=2048, tensor_parallel_size=1, enforce_eager=False
                        tuple("engine_version", 1, null, 0.0, "V0"),
                        // device_config=cuda in the engine config
                        tuple("device_type", 1, null, 1.0, "cuda"),
                        tuple("model", 1, null, 1.0, "facebook/opt-125m"),
                        tuple("max_model_len", 1, null, 2048.0, "2048"),
                        tuple("tensor_parallel_size", 1, null, 1.0, "1"),
                        tuple("enforce_eager", 1, null, 0.0, "False"),
                        tuple("weights", 3, 256_492_175L, null, "244.61 MB"),
                        tuple("gpu_blocks", 4, null, 76_240.0, "76240"),
                        tuple("cpu_blocks", 4, null, 7_281.0, "7281"));
    }

    @Test
    void readsTheFileAsUtf8EvenWithProgressBarBlocks() throws Exception {
        Path p = Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log");
        String text = new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        assertThat(text).contains("\u2588");
        // 8 figures, 2 server_start markers (line 8 non-default args, line 20 engine) and 11 deployment
        // figures: line 8 max_model_len, enforce_eager, model; line 20 vllm_version, engine_version,
        // device_type (device_config=npu), model, max_model_len, tensor_parallel_size,
        // pipeline_parallel_size, enforce_eager
        assertThat(VllmLogParser.parse(text).observations()).hasSize(21);
    }
}

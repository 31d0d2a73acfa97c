package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fresh-user findings of 29 Nov, each replayed from the real corpus files the user ran
 * (numbered as in the findings); expected values are worked out by hand in the comments.
 */
class AnalyzeFindingsTest {

    static final long MIB = 1L << 20;

    @TempDir
    Path tmp;

    static String corpus(String rel) {
        return Corpus.file(rel).toString();
    }

    static final String T264 = "npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt";
    static final String T312 = "npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt";
    static final String T2667 = "npu-smi/vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt";

    static JsonNode json(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        return new ObjectMapper().readTree(r.out());
    }

    static JsonNode device(JsonNode report, int i) {
        return report.get("devices").get(i);
    }

    static JsonNode entry(JsonNode device, String component) {
        for (JsonNode e : device.get("entries")) {
            if (e.get("component").asText().equals(component)) {
                return e;
            }
        }
        throw new AssertionError("no " + component + " in " + device);
    }

    static JsonNode check(JsonNode device, String name) {
        for (JsonNode c : device.get("checks")) {
            if (c.get("name").asText().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no check " + name + " in " + device.get("checks"));
    }

    static List<String> checkNames(JsonNode device) {
        List<String> out = new ArrayList<>();
        device.get("checks").forEach(c -> out.add(c.get("name").asText()));
        return out;
    }

    static String lines(String file, int from, int to) throws Exception {
        List<String> all = Files.readAllLines(Corpus.file(file));
        return String.join("\n", all.subList(from - 1, to)) + "\n";
    }

    // ---- 12: a worker outside the given server pids is named like the server

    @Test
    void finding12RayWorkersOutsideTheGivenPidsWarn() throws Exception {
        String t = corpus(T264);
        JsonNode r = json(CliRun.of("analyze", t, "--tp", "16", "--server-pid", "418635",
                "--moment", t + "=ready", "--format", "json"));
        // device 1: line 61 "| 1  0 | 418709 | rayNPURayWork | 56063 |" is not pid 418635
        JsonNode d1 = device(r, 1);
        assertThat(check(d1, "unlisted_server_processes").get("status").asText()).isEqualTo("warn");
        assertThat(check(d1, "unlisted_server_processes").get("detail").asText())
                .contains("418709").contains("rayNPURayWork").contains("54.75 GiB"); // 56063 MiB = 54.749 GiB
        // device 0 holds only the given pid: no such check
        assertThat(checkNames(device(r, 0))).doesNotContain("unlisted_server_processes");
    }

    // ---- 2: several npu-smi samples of one device at one moment are never added up

    @Test
    void finding2TwoSamplesInOneFileUseTheLastNeverTheSum() throws Exception {
        // the 264 table twice (99 lines each): the second copy's rows are at line + 99
        Path both = tmp.resolve("both.txt");
        Files.writeString(both, lines(T264, 1, 99) + lines(T264, 1, 99));
        JsonNode d0 = device(json(CliRun.of("analyze", both.toString(), "--tp", "16", "--server-pid", "418635",
                "--moment", both + "=ready", "--format", "json")), 0);
        // used: line 108 (= 9 + 99) "59356" MiB, the last sample
        assertThat(d0.get("used_bytes").asLong()).isEqualTo(59356 * MIB);
        JsonNode server = entry(d0, "server_processes");
        // one process row, line 158 (= 59 + 99) "56057" MiB = 58780024832 B, not twice that
        assertThat(server.get("bytes").asLong()).isEqualTo(58780024832L);
        assertThat(server.get("sources")).hasSize(1);
        assertThat(server.get("sources").get(0).get("line").asInt()).isEqualTo(158);
        // (59356 - 56057) MiB = 3299 MiB = 3459252224 B
        assertThat(entry(d0, "outside_processes").get("bytes").asLong()).isEqualTo(3459252224L);
        assertThat(r(d0)).contains("the last of 2 samples");
    }

    private static String r(JsonNode d) {
        return d.toString();
    }

    @Test
    void finding2TwoFilesAtOneMomentUseTheLastListedAndSaySo() throws Exception {
        String a = corpus(T264);
        String b = corpus(T312);
        JsonNode d0 = device(json(CliRun.of("analyze", a, b, "--tp", "1", "--moment", a + "=ready",
                "--moment", b + "=ready", "--format", "json")), 0);
        // the 312 table, listed last: device 0 line 9 "3437" MiB = 3603955712 B
        assertThat(d0.get("used_bytes").asLong()).isEqualTo(3603955712L);
        assertThat(r(d0)).contains("2 files were taken at this moment");
    }

    @Test
    void finding2SameFileListedTwiceIsRefused() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("run"));
        Files.copy(Corpus.file(T264), dir.resolve("ready.txt"));
        Files.writeString(dir.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\", \"evidence\": ["
                + "{\"file\": \"ready.txt\", \"moment\": \"ready\"}, {\"file\": \"./ready.txt\", \"moment\": \"ready\"}]}");
        CliRun r = CliRun.of("analyze", dir.toString(), "--no-write");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("evidence[0] and evidence[1]").contains("same file");
    }

    // ---- 3: a log with two server starts

    @Test
    void finding3AppendedLogsUseTheLastStartOnly() throws Exception {
        // 2667 (59 lines) then 5044: the second start begins at line 60 "(EngineCore_DP0 pid=298)"
        Path log = tmp.resolve("two-runs.log");
        Files.writeString(log, lines("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log", 1, 59)
                + lines("vllm-log/vllm-ascend-5044_v1_mooncake_available_memory_bytes.log", 1, 19));
        JsonNode r = json(CliRun.of("analyze", log.toString(), "--format", "json", "--no-write"));
        JsonNode d0 = device(r, 0);
        // 5044 line 11 "Loading model weights took 15.2684 GB" = line 70 of the joined log
        assertThat(entry(d0, "weights").get("sources").get(0).get("line").asInt()).isEqualTo(70);
        // 5044 line 13 "Available memory: 10700878950" = line 72
        assertThat(entry(d0, "kv_cache").get("bytes").asLong()).isEqualTo(10700878950L);
        // 2667's utilization (line 8) is not mixed with 5044's figures: no -1.64 GiB lump
        assertThat(d0.toString()).doesNotContain("-1764957900");
        assertThat(r.get("notes").toString()).contains("2 server starts").contains("line 8").contains("from line 60");
    }

    // ---- 4: samples and logs that do not belong together

    @Test
    void finding4MixedHostsAndFarTotalsDoNotPass() throws Exception {
        String idle = corpus(T312);
        String ready = corpus(T2667);
        String log = corpus("vllm-log/vllm-ascend-5044_v1_mooncake_available_memory_bytes.log");
        JsonNode r = json(CliRun.of("analyze", idle, ready, log, "--tp", "2", "--devices", "2,3",
                "--moment", idle + "=baseline", "--moment", ready + "=ready", "--format", "json"));
        JsonNode d2 = device(r, 0);
        // 910B1 table: device 2 = NPU 2 chip 0, 8 chips, no Phy-ID; A3 table: Phy-ID 2 = NPU 1 chip 0, 16 chips
        JsonNode layout = check(d2, "samples_same_layout");
        assertThat(layout.get("status").asText()).isEqualTo("warn");
        assertThat(layout.get("detail").asText()).contains("npu:2/chip:0").contains("npu:1/chip:0");
        // 5044 line 13 total 31662800896 B = 29.49 GiB of 64 GiB: 37056675840 B = 34.51 GiB less
        JsonNode total = check(d2, "vllm_total_vs_capacity");
        assertThat(total.get("status").asText()).isEqualTo("warn");
        assertThat(total.get("detail").asText()).contains("34.51 GiB less");
    }

    @Test
    void finding4RuntimeTotalAboveCapacityWarnsWithoutANegativeAmount() throws Exception {
        // localgpt issue 14: line 10 "1585MiB / 11264MiB", an 11.00 GiB card; the log's 79.22 GiB
        // total (85061827297 B) is another GPU: 85061827297 - 11811160064 = 73250667233 B = 68.22 GiB
        String smi = corpus("nvidia-smi/localgpt-14_windows_wddm_quoted.txt");
        JsonNode r = json(CliRun.of("analyze", smi, corpus("vllm-log/vllm-pr12126_llama3.2-11B-vision_cuda_blocks.log"),
                "--moment", smi + "=ready", "--format", "json"));
        JsonNode total = check(device(r, 0), "vllm_total_vs_capacity");
        assertThat(total.get("status").asText()).isEqualTo("warn");
        assertThat(total.get("detail").asText()).contains("68.22 GiB MORE").doesNotContain("-68.22");
    }

    // ---- 8: a GPU run in GPU terms

    @Test
    void finding8NvidiaRunsSpeakOfNvidiaSmiNcclAndCuda() throws Exception {
        String smi = corpus("nvidia-smi/vllm-55169_H100_580_driver_2gpu_partial.txt");
        CliRun run = CliRun.of("analyze", smi, corpus("vllm-log/vllm-pr12126_llama3.2-11B-vision_cuda_blocks.log"),
                "--moment", smi + "=ready", "--format", "json");
        JsonNode r = json(run);
        assertThat(r.get("incomplete_reasons").toString()).doesNotContain("msprof").doesNotContain("npu-smi")
                .contains("no nvidia-smi per-process memory of the serving processes", "CUDA context and NCCL buffers");
        JsonNode d0 = device(r, 0);
        assertThat(entry(d0, "nccl").get("confidence").asText()).isEqualTo("unknown");
        assertThat(entry(d0, "cuda_runtime").get("confidence").asText()).isEqualTo("unknown");
        assertThat(run.out()).doesNotContain("npu-smi").doesNotContain("msprof").doesNotContain("HCCL")
                .doesNotContain("\"hccl\"");
        assertThat(check(d0, "vllm_total_vs_capacity").get("detail").asText()).contains("nvidia-smi shows");
    }

    // ---- 9: npu-smi info -t usages gives capacity and used

    @Test
    void finding9UsagesSampleGivesCapacityAndUsed() throws Exception {
        String u = corpus("npu-smi/hiascend-doc_atlas200IA2_info_t_usages_i0.txt");
        JsonNode d0 = device(json(CliRun.of("analyze", u, "--moment", u + "=ready", "--format", "json")), 0);
        // line 6 "Memory Capacity(MB) : 10810" = 11335106560 B; line 7 "Memory Usage Rate(%) : 35"
        // -> 11335106560 x 35 / 100 = 3967287296 B
        assertThat(d0.get("capacity_bytes").asLong()).isEqualTo(11335106560L);
        assertThat(d0.get("used_bytes").asLong()).isEqualTo(3967287296L);
        assertThat(d0.toString()).doesNotContain("other moments");
    }

    @Test
    void finding9NoSampleAtTheMomentSaysWhichSamplesExist() throws Exception {
        String idle = corpus(T312);
        JsonNode r = json(CliRun.of("analyze", idle, "--moment", idle + "=baseline", "--format", "json"));
        assertThat(device(r, 0).toString()).doesNotContain("other moments").contains("appears only in");
    }

    // ---- 6: an out-of-memory log in file-list mode

    static final String OOM_LOG = "vllm-log/vllm-ascend-264_deepseek-r1_ray_tp16_npu_oom.log";

    @Test
    void finding6NpuIndexOfTheOomLineIsTheDeploymentsDevice() throws Exception {
        String t = corpus(T264);
        String log = corpus(OOM_LOG);
        JsonNode r = json(CliRun.of("analyze", t, log, "--tp", "16", "--moment", t + "=oom", "--moment", log + "=oom",
                "--format", "json"));
        // log line 16 "(NPU 15; ...; 53.74 GiB already allocated; ...)": position 15 of devices 0..15
        JsonNode d15 = device(r, 15);
        assertThat(d15.get("device").asText()).isEqualTo("npu:15/chip:0");
        assertThat(entry(d15, "torch_allocated").get("bytes").asLong()).isEqualTo(57702885622L);
        assertThat(r.get("status").asText()).isEqualTo("failed");
        assertThat(r.get("incomplete_reasons").toString()).contains("npu:15/chip:0");
        assertThat(r.get("process_level")).isEmpty();
    }

    @Test
    void finding6ExplicitFileDeviceWins() throws Exception {
        String t = corpus(T264);
        String log = corpus(OOM_LOG);
        JsonNode r = json(CliRun.of("analyze", t, log, "--tp", "16", "--moment", t + "=oom", "--moment", log + "=oom",
                "--file-device", log + "=3", "--format", "json"));
        assertThat(entry(device(r, 3), "torch_allocated").get("bytes").asLong()).isEqualTo(57702885622L);
        assertThat(device(r, 15).toString()).doesNotContain("torch_allocated");
    }

    @Test
    void finding6UntiedOomFiguresGoToProcessLevel() throws Exception {
        String t = corpus(T264);
        String log = corpus(OOM_LOG);
        // TP 8: "NPU 15" is beyond the 8 devices, so no device ledger can take the figures
        JsonNode r = json(CliRun.of("analyze", t, log, "--tp", "8", "--moment", t + "=oom", "--moment", log + "=oom",
                "--format", "json"));
        assertThat(r.get("process_level").toString()).contains("oom_allocated").contains("57702885622")
                .contains("oom_tried").contains("18790481920").contains("oom_free");
        assertThat(r.get("incomplete_reasons").toString()).contains("--file-device");
    }

    @Test
    void finding6NoMomentAdviceFitsTheLedgersMoment() throws Exception {
        String t = corpus(T264);
        String log = corpus(OOM_LOG);
        JsonNode r = json(CliRun.of("analyze", t, log, "--tp", "16", "--format", "json"));
        assertThat(check(device(r, 15), "mixed_moments").get("detail").asText()).doesNotContain("FILE=ready")
                .contains("--moment FILE=oom");
    }

    // ---- 7: a CSV data row is never shown as a file line

    @Test
    void finding7CsvSourcesSayRowNotLine() throws Exception {
        String csv = corpus("nvidia-smi/query-gpu-csv_2gpu_index_used_total.csv");
        // data row 2 "1, 8311 MiB, 16303 MiB" is file line 3 (one header line)
        CliRun text = CliRun.of("analyze", csv, "--tp", "2", "--moment", csv + "=ready", "--all-devices");
        assertThat(text.exit()).isEqualTo(0);
        assertThat(text.out()).contains("row 2 \"8311 MiB\"").doesNotContain(":2 \"8311 MiB\"");
        JsonNode d1 = device(json(CliRun.of("analyze", csv, "--tp", "2", "--moment", csv + "=ready", "--format", "json")), 1);
        assertThat(d1.get("used_source").get("line").asInt()).isEqualTo(2);
        assertThat(d1.get("used_source").get("data_row").asBoolean()).isTrue();
    }

    // ---- 16: nothing to attribute exits 2; a missing file names its run.json line

    @Test
    void finding16ALogWithoutMemoryFiguresAloneExits2() {
        CliRun r = CliRun.of("analyze", corpus("vllm-log/vllm-ascend-pr429_caret_notation_ansi_and_CR.log"), "--no-write");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("nothing to attribute");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void finding16BaselineOnlyRunIsALedger() throws Exception {
        String idle = corpus(T312);
        JsonNode r = json(CliRun.of("analyze", idle, "--moment", idle + "=baseline", "--format", "json"));
        assertThat(r.get("status").asText()).isEqualTo("incomplete");
    }

    @Test
    void finding16MissingFileNamesItsRunJsonLine() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("run"));
        Files.writeString(dir.resolve("run.json"), "{\n  \"schema\": \"hbm-ledger/run/1\",\n  \"evidence\": [\n"
                + "    {\"file\": \"nope.txt\", \"moment\": \"ready\"}\n  ]\n}\n");
        CliRun r = CliRun.of("analyze", dir.toString(), "--no-write");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("run.json:4: evidence[0] \"nope.txt\": expected a regular file or an msprof export directory, found nothing");
    }

    // ---- 17: minor

    @Test
    void finding17NoRunningProcessesIsAMeasuredZero() throws Exception {
        String a3 = corpus(T2667);
        JsonNode d0 = device(json(CliRun.of("analyze", a3, "--moment", a3 + "=ready", "--format", "json")), 0);
        // line 59 "| No running processes found in NPU 0 |": Phy-ID 0 is NPU 0 chip 0
        JsonNode other = entry(d0, "other_processes");
        assertThat(other.get("confidence").asText()).isEqualTo("measured");
        assertThat(other.get("bytes").asLong()).isZero();
    }

    @Test
    void finding17LoadSampleWithoutReadySaysItIsUnused() throws Exception {
        String t = corpus(T264);
        JsonNode d0 = device(json(CliRun.of("analyze", t, "--moment", t + "=load", "--format", "json")), 0);
        assertThat(check(d0, "growth_after_ready").get("status").asText()).isEqualTo("skipped");
        assertThat(check(d0, "growth_after_ready").get("detail").asText()).contains("not used");
    }

    @Test
    void finding17BlocksWithoutBytesAreNamedInTheKvNote() throws Exception {
        JsonNode d0 = device(json(CliRun.of("analyze", corpus("vllm-log/vllm-ascend-1425_310P3_qwen2.5-3B_v0_npu_blocks_dot_glued.log"),
                "--format", "json")), 0);
        assertThat(entry(d0, "kv_cache").get("note").asText()).contains("466 blocks");
    }

    @Test
    void finding8ALogAloneDoesNotClaimAnAscendRun() throws Exception {
        // vLLM PR 12126 log, no device sample: its "# CUDA blocks" (executor_base.py prints the platform's
        // device name) makes it an NVIDIA run: no Ascend-only lines (hccl, cann_runtime), CUDA's instead
        JsonNode r = json(CliRun.of("analyze", corpus("vllm-log/vllm-pr12126_llama3.2-11B-vision_cuda_blocks.log"),
                "--format", "json"));
        assertThat(r.get("incomplete_reasons").toString()).contains("nvidia-smi").doesNotContain("msprof")
                .doesNotContain("npu-smi").doesNotContain("hccl").doesNotContain("cann_runtime");
        java.util.List<String> components = new java.util.ArrayList<>();
        device(r, 0).get("entries").forEach(e -> components.add(e.get("component").asText()));
        assertThat(components).contains("nccl", "cuda_runtime").doesNotContain("hccl", "cann_runtime");
    }

    /** The same without any device word: the accelerator stays unknown and both runtimes' words are offered. */
    @Test
    void finding8ALogWithoutADeviceTypeClaimsNeither() throws Exception {
        // vllm #13882's profiling lines without the "# cuda blocks" line that names the device
        Path log = tmp.resolve("no-device.log");
        java.nio.file.Files.writeString(log, "INFO 02-26 09:54:05 worker.py:267] the current vLLM instance can use"
                + " total_gpu_memory (8.00GiB) x gpu_memory_utilization (0.70) = 5.60GiB\n");
        JsonNode r = json(CliRun.of("analyze", log.toString(), "--no-write", "--format", "json"));
        assertThat(r.get("incomplete_reasons").toString()).contains("msprof on Ascend; none is read yet for NVIDIA GPUs")
                .doesNotContain("no msprof evidence in the run");
    }
}

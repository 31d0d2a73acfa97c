package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One log with the starts of two different models is two servers, not a restart of one: each
 * keeps its figures and is its own instance in the findings. A start of the same model again is
 * still a restart (its earlier figures set aside).
 */
class AnalyzeTwoServersTest {

    @TempDir
    Path tmp;

    private JsonNode analyze(Path log) throws Exception {
        return AnalyzeFindingsTest.json(CliRun.of("analyze", log.toString(), "--no-write", "--format", "json"));
    }

    private static List<String> kindsAndInstances(JsonNode report) {
        List<String> out = new ArrayList<>();
        report.get("findings").forEach(f -> out.add(f.get("kind").asText() + " " + f.path("instance").asText("")));
        return out;
    }

    /**
     * vllm #10533 as posted: a 72B at 0.75 and a 14B at 0.20 on one 80 GB A100, the two start
     * commands one after the other with no figure between, then the 14B's refusal and the head of
     * its profiling line (total 79.15 GiB). The shares sum to 0.75 + 0.20 = 0.95; 0.95 x 79.15 =
     * 75.1925 -> 75.19 GiB asked together.
     */
    @Test
    void twoStartCommandsOfDifferentModelsAreTwoInstances() throws Exception {
        String command = "python3 -m vllm.entrypoints.openai.api_server \\\n"
                + "        --model /models/Qwen2.5-%s-Instruct-GPTQ-Int4 \\\n"
                + "        --gpu-memory-utilization %s \\\n"
                + "        --max-model-len=16384 \\\n"
                + "        --served-model-name qwen2.5-14b \\\n"
                + "        --quantization=gptq \\\n"
                + "        --enforce-eager \\\n"
                + "        --enable-chunked-prefill \\\n"
                + "        --enable-prefix-caching\n";
        Path log = tmp.resolve("i10533.log");
        Files.writeString(log, String.format(command, "72B", "0.75") + String.format(command, "14B", "0.20")
                + "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when"
                + " initializing the engine.\n"
                + "Memory profiling results: total_gpu_memory=79.15GiB initial_memory_usage=68.01GiB\n");
        JsonNode report = analyze(log);
        assertThat(kindsAndInstances(report)).containsExactly(
                "kv_negative i10533.log (/models/Qwen2.5-14B-Instruct-GPTQ-Int4)",
                "over_subscribed ");
        JsonNode over = report.get("findings").get(1);
        assertThat(over.get("text").asText()).contains("0.75 + 0.2 = 0.95", "75.19 GiB", "79.15 GiB");
        // both shares are the user's own --gpu-memory-utilization, not printed by vLLM
        assertThat(over.get("figures").get(0).get("confidence").asText()).isEqualTo("inferred");
        assertThat(report.get("findings").get(0).get("text").asText()).contains("gpu_memory_utilization 0.2");
        assertThat(report.get("notes").toString()).contains("holds 2 servers of different models"
                + " (/models/Qwen2.5-72B-Instruct-GPTQ-Int4 from line 1, /models/Qwen2.5-14B-Instruct-GPTQ-Int4 from line 10)");
    }

    /**
     * Two real logs appended: facebook/opt-125m (vllm PR #3120, weights 244.61 MB) then
     * Qwen2.5-3B-Instruct (vllm-ascend #1425, weights 5.7917 GB x 2^30 = 6218790522 B). The first
     * is another server, not an earlier run of the second: its weights line stays in the evidence
     * the findings read; the same log appended to itself is a restart, as before.
     */
    @Test
    void appendedLogsOfDifferentModelsAreNotARestart() throws Exception {
        String opt = Files.readString(Corpus.file("vllm-log/vllm-pr3120_opt-125m_weights_in_MB_gpu_blocks.log"));
        String qwen = Files.readString(Corpus.file("vllm-log/vllm-ascend-1425_310P3_qwen2.5-3B_v0_npu_blocks_dot_glued.log"));
        Path two = tmp.resolve("two.log");
        Files.writeString(two, opt + qwen);
        JsonNode report = analyze(two);
        assertThat(report.get("notes").toString()).contains("holds 2 servers of different models (facebook/opt-125m from"
                + " line 1, /models/Qwen2.5-3B-Instruct from line 5)").doesNotContain("only the last start");
        JsonNode weights = AnalyzeFindingsTest.entry(AnalyzeFindingsTest.device(report, 0), "weights");
        assertThat(weights.get("bytes").asLong()).isEqualTo(6_218_790_522L);

        Path again = tmp.resolve("again.log");
        Files.writeString(again, qwen + qwen);
        assertThat(analyze(again).get("notes").toString()).contains("holds 2 server starts").contains("only the last start");
    }

    /**
     * Two servers of different models where only the first prints its KV cache: vllm PR #12126's
     * profiling lines (Llama-3.2-11B-Vision: weights 19.86 GiB, non-torch 0.16, KV cache 14.65 GiB;
     * its model named by a hand-written start command on line 1), then vllm PR #3120's opt-125m
     * (weights 244.61 MB x 2^20 = 256492175 B, KV cache only as 76240 blocks). Before, the device's
     * ledger took the weights of opt-125m and the KV cache and non-torch of the 11B: one line per
     * server. Now every line is opt-125m's; the 11B stays in the findings.
     */
    @Test
    void aDevicesLedgerLinesComeFromOneServer() throws Exception {
        Path log = tmp.resolve("two.log");
        Files.writeString(log, "$ vllm serve meta-llama/Llama-3.2-11B-Vision-Instruct --max-model-len 8192\n"
                + Files.readString(Corpus.file("vllm-log/vllm-pr12126_llama3.2-11B-vision_cuda_blocks.log"))
                + Files.readString(Corpus.file("vllm-log/vllm-pr3120_opt-125m_weights_in_MB_gpu_blocks.log")));
        JsonNode report = analyze(log);
        JsonNode device = AnalyzeFindingsTest.device(report, 0);
        assertThat(AnalyzeFindingsTest.entry(device, "weights").get("bytes").asLong()).isEqualTo(256_492_175L);
        assertThat(AnalyzeFindingsTest.entry(device, "kv_cache").get("bytes").isNull()).isTrue();
        assertThat(AnalyzeFindingsTest.entry(device, "non_torch").get("bytes").isNull()).isTrue();
        assertThat(report.get("notes").toString()).contains("the deployment, the device type and the ledger lines take their figures from facebook/opt-125m only (from ");
        // the 11B's own figures still answer for it: its budget of 0.90 x 79.22 GiB = 71.29 GiB
        assertThat(kindsAndInstances(report)).contains("what_fits two.log (meta-llama/Llama-3.2-11B-Vision-Instruct)");
        assertThat(report.get("findings").toString()).contains("71.29 GiB");
    }

    /**
     * vllm PR #19096's LLM(model=model_path, ...) call (a variable, no model name) before a real engine
     * log (vllm PR #3120, facebook/opt-125m): one server, not two of different models.
     */
    @Test
    void aModelNamedByAVariableIsNoOtherModel() throws Exception {
        String call = "    llm = LLM(\n        model=model_path,\n        tensor_parallel_size=tp_size,\n"
                + "        enforce_eager=enforce_eager,\n        distributed_executor_backend=\"external_launcher\",\n    )\n";
        Path log = tmp.resolve("call.log");
        Files.writeString(log, call + Files.readString(Corpus.file("vllm-log/vllm-pr3120_opt-125m_weights_in_MB_gpu_blocks.log")));
        JsonNode report = analyze(log);
        assertThat(report.get("notes").toString()).doesNotContain("servers of different models");
        assertThat(AnalyzeFindingsTest.entry(AnalyzeFindingsTest.device(report, 0), "weights").get("bytes").asLong())
                .isEqualTo(256_492_175L); // 244.61 MB x 2^20
    }

    /**
     * Two start commands as inline code in one line of an issue's prose, then the refusal of one of
     * them (vllm-ascend's start check, as in vllm-ascend #8621). Starts are told apart by line, so
     * the line is one start: before, it was split into an empty start and one holding both models,
     * and the run said both "2 servers (/models/Qwen2.5-7B-Instruct from line 3,
     * /models/Qwen2.5-7B-Instruct from line 3)" and "holds restarts", and labelled the refusal with
     * the first model although the prose says the second failed.
     */
    @Test
    void twoStartCommandsOnOneLineOfProseAreOneStartAndSaidSo() throws Exception {
        Path issue = tmp.resolve("issue.md");
        Files.writeString(issue, "I run two models on one 910B2 card.\n\n"
                + "I start the first with `vllm serve /models/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.45 --port 8001`"
                + " and the second with `vllm serve /models/Qwen3-8B --gpu-memory-utilization 0.45 --port 8002`.\n\n"
                + "The second fails:\n\n```\n"
                + "ValueError: Free memory on device (4.12/60.96 GiB) on startup is less than desired GPU memory utilization"
                + " (0.45, 27.43 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.\n```\n");
        JsonNode report = analyze(issue);
        assertThat(kindsAndInstances(report)).containsExactly("start_refused issue.md");
        String notes = report.get("notes").toString();
        assertThat(notes).contains("issue.md:3 starts servers of 2 different models on one line"
                + " (/models/Qwen2.5-7B-Instruct, /models/Qwen3-8B): they are read as one start");
        assertThat(notes).doesNotContain("holds restarts").doesNotContain("servers of different models");
    }

    /**
     * Two servers of different models on different accelerators and with different TP: vllm-ascend
     * #1425's 310P3 log (/models/Qwen2.5-3B-Instruct, TP 1 and device_config=npu in its engine config,
     * ASCEND_RT_VISIBLE_DEVICES=0 in its start command), then vllm PR #3120's opt-125m log on CUDA with
     * its engine config's tensor_parallel_size=1 written as 2 (the line otherwise as printed), line 39
     * of the joined file. Before, the two TP sizes made the deployment read from the log be dropped
     * (TP 1 on device 0 assumed) while the device type followed opt-125m. Now both come from the last
     * model's server, and the run says which one was used.
     */
    @Test
    void deploymentAndDeviceTypeComeFromTheLastModelsServer() throws Exception {
        String npu = Files.readString(Corpus.file("vllm-log/vllm-ascend-1425_310P3_qwen2.5-3B_v0_npu_blocks_dot_glued.log"));
        String cuda = Files.readString(Corpus.file("vllm-log/vllm-pr3120_opt-125m_weights_in_MB_gpu_blocks.log"))
                .replace("tensor_parallel_size=1", "tensor_parallel_size=2");
        Path gpuLast = tmp.resolve("gpu-last.log");
        Files.writeString(gpuLast, npu + cuda);
        JsonNode r = analyze(gpuLast);
        assertThat(r.get("run").get("tp").asInt()).isEqualTo(2);
        assertThat(r.get("devices")).extracting(d -> d.get("device").asText()).containsExactly("gpu:0", "gpu:1");
        assertThat(r.get("run").get("deployment_origin").asText()).isEqualTo("sizes read from " + gpuLast + ":39; the last"
                + " model's of the 2 servers in " + gpuLast + " (facebook/opt-125m from line 39)");
        assertThat(r.get("notes").toString()).contains("the deployment, the device type and the ledger lines take their"
                + " figures from facebook/opt-125m only (from " + gpuLast + ":39)");
        // 244.61 MB x 2^20 on each TP rank
        assertThat(AnalyzeFindingsTest.entry(AnalyzeFindingsTest.device(r, 1), "weights").get("bytes").asLong())
                .isEqualTo(256_492_175L);

        Path npuLast = tmp.resolve("npu-last.log");
        Files.writeString(npuLast, cuda + npu);
        JsonNode back = analyze(npuLast);
        // 1425's start command (line 5 of the joined file) and engine config (line 16): TP 1 on NPU 0
        assertThat(back.get("run").get("tp").asInt()).isEqualTo(1);
        assertThat(back.get("devices")).extracting(d -> d.get("device").asText()).containsExactly("npu:0");
        assertThat(back.get("run").get("deployment_origin").asText()).startsWith("sizes and devices read from " + npuLast
                + ":5, :16; the last model's of the 2 servers");
        // 5.7917 GB x 2^30
        assertThat(AnalyzeFindingsTest.entry(AnalyzeFindingsTest.device(back, 0), "weights").get("bytes").asLong())
                .isEqualTo(6_218_790_522L);
    }
}

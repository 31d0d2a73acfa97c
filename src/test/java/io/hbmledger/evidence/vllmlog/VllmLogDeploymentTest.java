package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.Observation;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The deployment read from vLLM's own start-up records and from start commands in a log or paste
 * (issue 10 item 6, issue 11 command lines).
 */
class VllmLogDeploymentTest {

    private static final Set<String> DEPLOYMENT = Set.of("model", "tensor_parallel_size", "pipeline_parallel_size",
            "data_parallel_size", "data_parallel_rank", "max_model_len", "enforce_eager", "kv_cache_dtype_bytes", "visible_devices",
            "vllm_version", "engine_version", "memory_utilization", "server_start");

    private static List<Observation> deployment(String text) {
        return VllmLogParser.parse(text).observations().stream().filter(o -> DEPLOYMENT.contains(o.quantity().contractName())).toList();
    }

    /** Corpus log vllm-ascend #1425 (v0.9.1, 310P3): the command on line 1, then vLLM's own records. */
    @Test
    void commandAndArgsOfARealAscendLog() throws Exception {
        String text = Files.readString(Corpus.file("vllm-log/vllm-ascend-1425_310P3_qwen2.5-3B_v0_npu_blocks_dot_glued.log"));
        List<Observation> d = deployment(text);
        // line 1: ASCEND_RT_VISIBLE_DEVICES=0 vllm serve /models/Qwen2.5-3B-Instruct ... --max-model-len 32768
        // ... --kv-cache-dtype fp8 --enforce-eager
        assertThat(d).filteredOn(o -> o.line() == 1)
                .extracting(x -> x.quantity().contractName(), Observation::value, Observation::text, x -> x.context().component())
                .containsExactly(
                        tuple("server_start", 1.0, "ASCEND_RT_VISIBLE_DEVICES=0 vllm serve", null),
                        tuple("visible_devices", 1.0, "0", "ASCEND_RT_VISIBLE_DEVICES"),
                        tuple("model", 1.0, "/models/Qwen2.5-3B-Instruct", null),
                        tuple("max_model_len", 32768.0, "32768", null),
                        tuple("kv_cache_dtype_bytes", 1.0, "fp8", null),
                        tuple("enforce_eager", 1.0, "--enforce-eager", null));
        // line 4 "vLLM API server version 0.9.1"; line 12 "Initializing a V0 LLM engine (v0.9.1)"
        assertThat(d).filteredOn(o -> o.quantity().contractName().equals("vllm_version")).extracting(Observation::line, Observation::text)
                .containsExactly(tuple(4, "0.9.1"), tuple(12, "0.9.1"));
        assertThat(d).filteredOn(o -> o.quantity().contractName().equals("engine_version")).extracting(Observation::line, Observation::value, Observation::text)
                .containsExactly(tuple(12, 0.0, "V0"));
    }

    /** The draft model of a nested speculative_config is not the deployment's model (corpus vllm-ascend #2667). */
    @Test
    void nestedSpeculativeConfigIsSkipped() throws Exception {
        String text = Files.readString(Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log"));
        assertThat(deployment(text)).filteredOn(o -> o.quantity().contractName().equals("model")).extracting(Observation::line, Observation::text)
                .containsExactly(tuple(8, "LLM-Research/Meta-Llama-3.1-8B-Instruct"), tuple(20, "LLM-Research/Meta-Llama-3.1-8B-Instruct"));
        assertThat(deployment(text)).filteredOn(o -> o.quantity().contractName().equals("max_model_len")).extracting(Observation::line, Observation::value)
                .containsExactly(tuple(8, 128.0), tuple(20, 128.0));
    }

    @Test
    void nonDefaultArgsDictAndNamespace() {
        String text = "(APIServer pid=1) INFO 08-27 21:01:02 [utils.py:326] non-default args: {'model_tag': 'Qwen/Qwen3-8B', "
                + "'model': 'Qwen/Qwen3-8B', 'tensor_parallel_size': 4, 'data_parallel_size': 2, 'max_model_len': 32768, "
                + "'kv_cache_dtype': 'fp8_e5m2', 'gpu_memory_utilization': 0.85}\n"
                + "INFO 06-01 10:00:00 api_server.py:212] args: Namespace(host=None, model='m2', pipeline_parallel_size=2, "
                + "tensor_parallel_size=1, enforce_eager=False, max_model_len=None, kv_cache_dtype='auto')\n";
        assertThat(deployment(text)).filteredOn(o -> !o.quantity().contractName().equals("server_start"))
                .extracting(x -> x.quantity().contractName(), Observation::line, Observation::value, Observation::text, x -> x.context().pid())
                .containsExactly(
                        tuple("model", 1, 1.0, "Qwen/Qwen3-8B", 1L),
                        tuple("tensor_parallel_size", 1, 4.0, "4", 1L),
                        tuple("data_parallel_size", 1, 2.0, "2", 1L),
                        tuple("max_model_len", 1, 32768.0, "32768", 1L),
                        tuple("kv_cache_dtype_bytes", 1, 1.0, "fp8_e5m2", 1L),
                        tuple("memory_utilization", 1, 0.85, "0.85", 1L),
                        tuple("model", 2, 1.0, "m2", null),
                        tuple("pipeline_parallel_size", 2, 2.0, "2", null),
                        tuple("tensor_parallel_size", 2, 1.0, "1", null),
                        tuple("enforce_eager", 2, 0.0, "False", null));
    }

    @Test
    void commandLineFormsOfTheIssue() {
        String text = "CUDA_VISIBLE_DEVICES=4,5 vllm serve Qwen/Qwen2.5-7B --tensor-parallel-size 2 --gpu-memory-utilization 0.9\n"
                + "python -m vllm.entrypoints.openai.api_server --model /m/llama -tp 4 --pipeline_parallel_size=2 -dp 1\n"
                + "vllm serve M --tensor_parallel_size=8 --max-model-len=4096 --no-enforce-eager --kv-cache-dtype auto\n";
        assertThat(deployment(text)).filteredOn(o -> !o.quantity().contractName().equals("server_start"))
                .extracting(x -> x.quantity().contractName(), Observation::line, Observation::value, Observation::text)
                .containsExactly(
                        tuple("visible_devices", 1, 2.0, "4,5"),
                        tuple("model", 1, 1.0, "Qwen/Qwen2.5-7B"),
                        tuple("tensor_parallel_size", 1, 2.0, "2"),
                        tuple("memory_utilization", 1, 0.9, "0.9"),
                        tuple("model", 2, 1.0, "/m/llama"),
                        tuple("tensor_parallel_size", 2, 4.0, "4"),
                        tuple("pipeline_parallel_size", 2, 2.0, "2"),
                        tuple("data_parallel_size", 2, 1.0, "1"),
                        tuple("model", 3, 1.0, "M"),
                        tuple("tensor_parallel_size", 3, 8.0, "8"),
                        tuple("max_model_len", 3, 4096.0, "4096"),
                        tuple("enforce_eager", 3, 0.0, "--no-enforce-eager"));
        // three commands, three instances
        assertThat(deployment(text)).filteredOn(o -> o.quantity().contractName().equals("server_start")).extracting(Observation::line)
                .containsExactly(1, 2, 3);
    }

    /** A command continued with backslashes, an export before it: every line is part of that start. */
    @Test
    void continuedCommandAndExportBelongToOneStart() {
        String text = "export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\n"
                + "vllm serve /models/Qwen3-32B \\\n"
                + "  --tensor-parallel-size 4 \\\n"
                + "  --max-model-len 16384\n"
                + "INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.10.0\n";
        List<Observation> d = deployment(text);
        assertThat(d).filteredOn(o -> !o.quantity().contractName().equals("server_start"))
                .extracting(x -> x.quantity().contractName(), Observation::line, Observation::value)
                .containsExactly(
                        tuple("visible_devices", 1, 4.0),
                        tuple("model", 2, 1.0),
                        tuple("tensor_parallel_size", 3, 4.0),
                        tuple("max_model_len", 4, 16384.0),
                        tuple("vllm_version", 5, 1.0));
        assertThat(d).filteredOn(o -> o.quantity().contractName().equals("server_start")).extracting(Observation::line)
                .containsExactly(1, 2, 3, 4, 5);
    }

    /**
     * torchrun launches. Line 1-2: the command in vLLM's examples/offline_inference/torchrun_dp_example.py
     * docstring, whose script passes --tp-size/--pp-size/--dp-size to LLM(tensor_parallel_size=...,
     * pipeline_parallel_size=..., data_parallel_size=...). A script of the user's: vLLM's own flag names
     * are read (line 3), its own names are not (line 4: --tp-size means what that script makes of it),
     * but vLLM's utilization flag makes it the user's start. torchrun without a script starts nothing.
     */
    @Test
    void torchrunLaunchesReadOnlyVllmsArguments() {
        String text = "$ torchrun --nproc-per-node=8 examples/offline_inference/torchrun_dp_example.py \\\n"
                + "    --tp-size=2 --pp-size=1 --dp-size=4 --enable-ep\n"
                + "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc-per-node 2 --master-port 29501 infer.py --tensor-parallel-size 2\n"
                + "torchrun --nproc-per-node=2 my_infer.py --tp-size 2 --gpu-memory-utilization=0.7\n"
                + "python3 -m torch.distributed.run --nproc_per_node 4 -m mypkg.serve -tp 4\n"
                + "torchrun --nproc-per-node=2 --tp-size 2\n"
                + "the torchrun flags are not shown\n";
        assertThat(deployment(text)).filteredOn(o -> !o.quantity().contractName().equals("server_start"))
                .extracting(x -> x.quantity().contractName(), Observation::line, Observation::value)
                .containsExactly(
                        tuple("tensor_parallel_size", 2, 2.0),
                        tuple("pipeline_parallel_size", 2, 1.0),
                        tuple("data_parallel_size", 2, 4.0),
                        tuple("visible_devices", 3, 2.0),
                        tuple("tensor_parallel_size", 3, 2.0),
                        tuple("memory_utilization", 4, 0.7),
                        tuple("tensor_parallel_size", 5, 4.0));
        assertThat(deployment(text)).filteredOn(o -> o.quantity().contractName().equals("server_start")).extracting(Observation::line)
                .containsExactly(1, 2, 3, 4, 5);
    }

    /**
     * Shell prompts before a command, as pastes show them (vllm-ascend #2667's log begins with
     * "root@host:/home/vllm-ascend# python ..."): the command is read behind each.
     */
    @Test
    void commandsBehindShellPrompts() {
        String text = "root@host:/home/vllm-ascend# vllm serve /models/Qwen3-8B --gpu-memory-utilization 0.9\n"
                + "[root@node1 ~]# vllm serve /models/Qwen3-8B -tp 2\n"
                + "(vllm) user@box:~$ CUDA_VISIBLE_DEVICES=1 vllm serve /models/Qwen3-8B\n"
                + "the step# vllm serve is not shown\n";
        assertThat(deployment(text)).filteredOn(o -> o.quantity().contractName().equals("server_start"))
                .extracting(Observation::line).containsExactly(1, 2, 3);
        assertThat(deployment(text)).filteredOn(o -> o.quantity().contractName().equals("model"))
                .extracting(Observation::line).containsExactly(1, 2, 3);
    }

    /** Prose that names the command is no command (case ascend-8809, resolution-comment-excerpt.md). */
    @Test
    void proseMentioningVllmServeIsNoCommand() {
        assertThat(deployment("(the public excerpt ends here; the vllm serve flags are not visible)\n")).isEmpty();
        assertThat(deployment("nohup /usr/bin/python3.10 -m vllm.entrypoints.openai.api_server --model m -tp 2 &\n"))
                .extracting(x -> x.quantity().contractName()).contains("model", "tensor_parallel_size");
    }

    @Test
    void anEnvironmentWordInsideALogRecordIsNoDeviceList() {
        assertThat(deployment("INFO 01-01 00:00:00 [x.py:1] CUDA_VISIBLE_DEVICES=0,1 is set\n")).isEmpty();
    }

    /**
     * A public launch script for DP 2 with expert parallelism (one process per DP rank): the shell fills in
     * $MODEL_PATH and $MAX_MODEL_LEN, so neither names a value here; the environment's DP rank and size are read.
     */
    @Test
    void shellVariablesNameNoModelAndTheDpEnvironmentIsRead() {
        String line = "VLLM_USE_V1=0 VLLM_DP_RANK=1 VLLM_DP_SIZE=2 VLLM_DP_MASTER_IP=127.0.0.1 VLLM_DP_MASTER_PORT=25940 python -m"
                + " vllm.entrypoints.openai.api_server --enable-expert-parallel --model $MODEL_PATH   --tensor-parallel-size 4"
                + " --max-model-len $MAX_MODEL_LEN --gpu-memory-utilization 0.90 --max-num-seqs 32 --trust-remote-code --port 8802\n";
        assertThat(deployment(line)).filteredOn(o -> !o.quantity().contractName().equals("server_start"))
                .extracting(x -> x.quantity().contractName(), Observation::value, x -> x.context().component())
                .containsExactly(
                        tuple("data_parallel_rank", 1.0, "VLLM_DP_RANK"),
                        tuple("data_parallel_size", 2.0, "VLLM_DP_SIZE"),
                        tuple("tensor_parallel_size", 4.0, null),
                        tuple("memory_utilization", 0.9, null));
    }
}

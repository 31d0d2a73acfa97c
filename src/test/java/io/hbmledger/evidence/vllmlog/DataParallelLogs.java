package io.hbmledger.evidence.vllmlog;

/**
 * A dense model served with {@code vllm serve Qwen/Qwen2.5-7B-Instruct -tp 2 -dp 2} (vLLM
 * V1, v0.11 era, multiprocessing executor, one node), as vLLM would log it. SYNTHESISED: no such
 * log was found in a public thread; every line is written in the form of the source line that
 * prints it, with made-up but consistent values:
 * <ul>
 *   <li>1: vllm/entrypoints/openai/api_server.py run_server {@code "vLLM API server version %s"};
 *       2: vllm/entrypoints/utils.py log_non_default_args {@code "non-default args: %s"};</li>
 *   <li>the engine cores: vllm/v1/engine/core.py run_engine_core names them
 *       {@code EngineCore_DP{dp_rank}} when DP is above 1, and for a model that is not MoE calls
 *       {@code reconfigure_for_independent_dp_rank()} (DP size 1 in each replica);
 *       {@code EngineCore.__init__} prints {@code "Initializing a V1 LLM engine (v%s) with config:
 *       %s"} only where {@code data_parallel_rank_local} is 0 (line 4), and
 *       {@code "init engine (profile, create kv cache, warmup model) took %.2f seconds"}
 *       (_initialize_kv_caches);</li>
 *   <li>the workers: vllm/v1/executor/multiproc_executor.py WorkerProc
 *       {@code setup_proc_title_and_log_prefix} labels a worker {@code Worker} until its parallel
 *       groups exist, then {@code Worker_TP{t}}: no {@code _DP}, the replica's DP group has one
 *       rank, so both replicas have a {@code Worker_TP0}; vllm/distributed/parallel_state.py
 *       {@code "rank %s in world size %s is assigned as DP rank %s, PP rank %s, TP rank %s, EP
 *       rank %s"}, DP rank 0 in both replicas for the same reason;</li>
 *   <li>figures: gpu_model_runner.py load_model {@code "Model loading took %.4f GiB and %.6f
 *       seconds"}, default_loader.py {@code "Loading weights took %.2f seconds"}, gpu_worker.py
 *       determine_available_memory {@code "Available KV cache memory: %.2f GiB"},
 *       v1/core/kv_cache_utils.py {@code "GPU KV cache size: {:,} tokens"} and {@code "Maximum
 *       concurrency for {:,} tokens per request: {:.2f}x"} (printed by the engine core),
 *       gpu_model_runner.py capture_model {@code "Graph capturing finished in %.0f secs, took %.2f
 *       GiB"};</li>
 *   <li>the prefix: vllm/utils _add_prefix {@code "({name} pid={pid}) "}, colour left out.</li>
 * </ul>
 * The two replicas start together and print interleaved, as concurrent processes do.
 */
public final class DataParallelLogs {

    private DataParallelLogs() {
    }

    /** Line numbers are the log's own (1-based). */
    public static final String DENSE_DP2_TP2 = """
            (APIServer pid=1000) INFO 10-20 09:00:01 [api_server.py:1839] vLLM API server version 0.11.0
            (APIServer pid=1000) INFO 10-20 09:00:01 [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen2.5-7B-Instruct', 'model': 'Qwen/Qwen2.5-7B-Instruct', 'tensor_parallel_size': 2, 'data_parallel_size': 2}
            (APIServer pid=1000) INFO 10-20 09:00:09 [model.py:547] Resolved architecture: Qwen2ForCausalLM
            (EngineCore_DP0 pid=1100) INFO 10-20 09:00:15 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='Qwen/Qwen2.5-7B-Instruct', tensor_parallel_size=2, pipeline_parallel_size=1
            (Worker pid=1200) INFO 10-20 09:00:21 [parallel_state.py:1208] rank 0 in world size 2 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0
            (Worker pid=1210) INFO 10-20 09:00:21 [parallel_state.py:1208] rank 0 in world size 2 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0
            (Worker pid=1201) INFO 10-20 09:00:21 [parallel_state.py:1208] rank 1 in world size 2 is assigned as DP rank 0, PP rank 0, TP rank 1, EP rank 1
            (Worker pid=1211) INFO 10-20 09:00:21 [parallel_state.py:1208] rank 1 in world size 2 is assigned as DP rank 0, PP rank 0, TP rank 1, EP rank 1
            (Worker_TP0 pid=1200) INFO 10-20 09:00:22 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2.5-7B-Instruct...
            (Worker_TP0 pid=1210) INFO 10-20 09:00:22 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2.5-7B-Instruct...
            (Worker_TP1 pid=1201) INFO 10-20 09:00:22 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2.5-7B-Instruct...
            (Worker_TP1 pid=1211) INFO 10-20 09:00:22 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2.5-7B-Instruct...
            (Worker_TP0 pid=1200) INFO 10-20 09:00:26 [default_loader.py:267] Loading weights took 3.41 seconds
            (Worker_TP0 pid=1200) INFO 10-20 09:00:26 [gpu_model_runner.py:2653] Model loading took 7.1694 GiB and 3.873021 seconds
            (Worker_TP1 pid=1201) INFO 10-20 09:00:26 [gpu_model_runner.py:2653] Model loading took 7.1694 GiB and 3.902113 seconds
            (Worker_TP0 pid=1210) INFO 10-20 09:00:27 [default_loader.py:267] Loading weights took 4.02 seconds
            (Worker_TP0 pid=1210) INFO 10-20 09:00:27 [gpu_model_runner.py:2653] Model loading took 7.1694 GiB and 4.512345 seconds
            (Worker_TP1 pid=1211) INFO 10-20 09:00:27 [gpu_model_runner.py:2653] Model loading took 7.1694 GiB and 4.498120 seconds
            (Worker_TP0 pid=1200) INFO 10-20 09:00:40 [gpu_worker.py:298] Available KV cache memory: 58.31 GiB
            (Worker_TP1 pid=1201) INFO 10-20 09:00:40 [gpu_worker.py:298] Available KV cache memory: 58.31 GiB
            (EngineCore_DP0 pid=1100) INFO 10-20 09:00:40 [kv_cache_utils.py:1087] GPU KV cache size: 2,183,648 tokens
            (EngineCore_DP0 pid=1100) INFO 10-20 09:00:40 [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 66.64x
            (Worker_TP0 pid=1210) INFO 10-20 09:00:41 [gpu_worker.py:298] Available KV cache memory: 58.02 GiB
            (Worker_TP1 pid=1211) INFO 10-20 09:00:41 [gpu_worker.py:298] Available KV cache memory: 58.02 GiB
            (EngineCore_DP1 pid=1101) INFO 10-20 09:00:41 [kv_cache_utils.py:1087] GPU KV cache size: 2,172,784 tokens
            (EngineCore_DP1 pid=1101) INFO 10-20 09:00:41 [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 66.31x
            (Worker_TP0 pid=1200) INFO 10-20 09:00:50 [gpu_model_runner.py:3480] Graph capturing finished in 9 secs, took 0.52 GiB
            (Worker_TP1 pid=1201) INFO 10-20 09:00:50 [gpu_model_runner.py:3480] Graph capturing finished in 9 secs, took 0.52 GiB
            (EngineCore_DP0 pid=1100) INFO 10-20 09:00:50 [core.py:210] init engine (profile, create kv cache, warmup model) took 35.12 seconds
            (Worker_TP0 pid=1210) INFO 10-20 09:00:51 [gpu_model_runner.py:3480] Graph capturing finished in 10 secs, took 0.53 GiB
            (Worker_TP1 pid=1211) INFO 10-20 09:00:51 [gpu_model_runner.py:3480] Graph capturing finished in 10 secs, took 0.53 GiB
            (EngineCore_DP1 pid=1101) INFO 10-20 09:00:51 [core.py:210] init engine (profile, create kv cache, warmup model) took 36.40 seconds
            (APIServer pid=1000) INFO 10-20 09:00:53 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000
            """;

    /**
     * The same start as a build whose workers inherit their engine core's wrapped stdout prints it:
     * vllm/utils _add_prefix then nests the worker's prefix inside the engine core's, as in public
     * vLLM issue logs ({@code (EngineCore_DP0 pid=1026745) (Worker_TP0 pid=1026751) ERROR ...}).
     */
    public static String nested(String log) {
        StringBuilder b = new StringBuilder();
        for (String line : log.split("\n", -1)) {
            String engine = line.matches("\\((?:Worker|Worker_TP\\d) pid=12\\d\\d\\).*")
                    ? (line.contains("pid=120") ? "(EngineCore_DP0 pid=1100) " : "(EngineCore_DP1 pid=1101) ")
                    : "";
            b.append(engine).append(line).append('\n');
        }
        return b.substring(0, b.length() - 1);
    }
}

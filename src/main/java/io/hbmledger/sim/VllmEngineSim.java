package io.hbmledger.sim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SIMULATOR: the engine start-up of a vllm-ascend V1 server, taking memory from the simulated
 * devices step by step and printing the lines a real server prints at each step.
 *
 * <p>Per rank (one device each): CANN runtime and GE memory at device init; the weights
 * (total / TP); a profile run that raises HCCL buffers (TP &gt; 1) and an activation peak, then
 * frees the activation; the KV cache budget by vllm-ascend's formula
 * ({@code worker_v1.py determine_available_memory}: available = total x utilization - peak, peak =
 * torch peak + non-torch allocations, non-torch = (total - free) - torch current); the KV cache
 * rounded down to whole blocks; then the graph pool, which vLLM does not count in the budget.
 *
 * <p>Log phrasings come from the corpus (vllm-ascend 2667 A3 V1 start-up log, 5044 log) and, for
 * the DEBUG memory split, from vLLM V1's gpu_worker ({@code Initial free memory ...},
 * {@code Free memory after profiling ...}, {@code Memory profiling takes ...},
 * {@code Available KV cache memory: X GiB}). "GB" in "Loading model weights took X GB" is GiB,
 * as vLLM prints it.
 */
final class VllmEngineSim {

    /** Memory sizes the simulator uses where no input decides them (all per rank). */
    static final long RUNTIME_BYTES = SimPlatform.ASCEND.runtimeBytes()[0];
    static final long GE_BYTES = SimPlatform.ASCEND.runtimeBytes()[1];
    static final long HCCL_BYTES = SimPlatform.ASCEND.collectiveBytes();

    private final VllmArgs args;
    private final SimModel model;
    private final SimStateStore store;
    private final VllmLog log;
    private final Map<String, String> env;
    private final long pid;
    private final List<Rank> ranks = new ArrayList<>();
    private final AtomicLong kvTokens = new AtomicLong();
    private final long activationBytes;
    private final long graphBytes;
    private final long stepMs;
    private final SimPlatform platform;

    /** One worker: DP replica, TP rank, device it runs on, log prefix, process that owns its memory. */
    record Rank(int dp, int tp, int device, String prefix, ProcessHandle owner) {

        long ownerPid() {
            return owner.pid();
        }
    }

    /**
     * @param owners one process per rank that owns the rank's memory (simulated worker processes),
     *               or empty: the server's own process owns everything
     */
    VllmEngineSim(VllmArgs args, SimModel model, SimStateStore store, VllmLog log,
            Map<String, String> env, long pid, List<Integer> devices, List<ProcessHandle> owners, SimPlatform platform) {
        this.args = args;
        this.model = model;
        this.store = store;
        this.log = log;
        this.env = env;
        this.pid = pid;
        for (int d = 0; d < args.dp(); d++) {
            for (int t = 0; t < args.tp(); t++) {
                String prefix = args.dp() > 1 ? "Worker_DP" + d + "_TP" + t : "Worker_TP" + t;
                int index = d * args.tp() + t;
                ProcessHandle owner = owners.isEmpty() ? ProcessHandle.current() : owners.get(index);
                ranks.add(new Rank(d, t, devices.get(index), prefix, owner));
                log.pid(prefix, owner.pid());
            }
        }
        // 1.26 GiB: "PyTorch activation peak memory 1.26GiB" for Llama-3-8B (vllm-pr10511 log)
        this.activationBytes = gib(args.simOption("activation-gib", env, "HBM_SIM_ACTIVATION_GIB", "1.26"));
        this.graphBytes = args.enforceEager() ? 0
                : gib(args.simOption("graph-gib", env, "HBM_SIM_GRAPH_GIB", "0.41"));
        this.stepMs = Long.parseLong(args.simOption("step-ms", env, "HBM_SIM_STEP_MS", "100"));
        this.platform = platform;
    }

    List<Rank> ranks() {
        return ranks;
    }

    long kvTokens() {
        return kvTokens.get();
    }

    long activationBytes() {
        return activationBytes;
    }

    String engine(int dp) {
        return "EngineCore_DP" + dp;
    }

    /** Runs start-up; throws {@link EngineFailure} after printing the failure as vLLM would. */
    void start() throws IOException {
        long t0 = System.nanoTime();
        for (int d = 0; d < args.dp(); d++) {
            log.info(engine(d), "core.py:75", "Initializing a V1 LLM engine (v0.11.0) with config: model='"
                    + args.model() + "', speculative_config=None, tokenizer='" + args.model()
                    + "', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, "
                    + "dtype=torch.bfloat16, max_seq_len=" + model.maxModelLen() + ", download_dir=None, "
                    + "load_format=auto, tensor_parallel_size=" + args.tp() + ", pipeline_parallel_size=1, "
                    + "data_parallel_size=" + args.dp() + ", disable_custom_all_reduce=True, quantization=None, "
                    + "enforce_eager=" + (args.enforceEager() ? "True" : "False") + ", kv_cache_dtype=auto, "
                    + "device_config=" + platform.deviceConfig() + ", seed=0, served_model_name=" + args.servedName()
                    + ", enable_prefix_caching=True, chunked_prefill_enabled=True");
        }
        int world = args.tp() * args.dp();
        for (Rank r : ranks) {
            log.info(r.prefix(), "parallel_state.py:1134", "rank " + (r.dp() * args.tp() + r.tp())
                    + " in world size " + world + " is assigned as DP rank " + r.dp()
                    + ", PP rank 0, TP rank " + r.tp() + ", EP rank " + (r.dp() * args.tp() + r.tp()));
        }
        fault("init");
        long[] initFree = new long[ranks.size()];
        for (int i = 0; i < ranks.size(); i++) {
            Rank r = ranks.get(i);
            for (int k = 0; k < platform.runtimeTags().length; k++) {
                alloc(r, platform.runtimeTags()[k], platform.runtimeBytes()[k]);
            }
            initFree[i] = store.read().freeBytes(r.device());
        }
        sleep(Long.parseLong(args.simOption("slow-start-ms", env, "HBM_SIM_VLLM_SLOW_START_MS", "0")));
        fault("load");
        long weightsPerRank = model.weightBytes() / args.tp();
        for (Rank r : ranks) {
            log.info(r.prefix(), platform.runner() + ":2282", "Starting to load model " + args.model() + "...");
        }
        int shards = model.shards();
        log.raw(String.format(Locale.ROOT, "Loading safetensors checkpoint shards:   0%% Completed | 0/%d [00:00<?, ?it/s]", shards));
        sleep(stepMs);
        for (Rank r : ranks) {
            alloc(r, "weights", weightsPerRank);
        }
        log.raw(String.format(Locale.ROOT, "Loading safetensors checkpoint shards: 100%% Completed | %d/%d [00:01<00:00,  2.60it/s]", shards, shards));
        for (Rank r : ranks) {
            log.raw("(" + r.prefix() + " pid=" + r.ownerPid() + ")");
            log.info(r.prefix(), "default_loader.py:267", String.format(Locale.ROOT,
                    "Loading weights took %.2f seconds", stepMs / 1000.0));
            if (platform.cuda()) {
                // vllm-pr17122 (L40S): "Model loading took 14.9889 GiB and 3.652170 seconds"
                log.info(r.prefix(), "gpu_model_runner.py:1316", String.format(Locale.ROOT,
                        "Model loading took %.4f GiB and %.6f seconds", weightsPerRank / (double) SimState.GIB, stepMs / 1000.0));
            } else {
                log.info(r.prefix(), "model_runner_v1.py:2705", String.format(Locale.ROOT,
                        "Loading model weights took %.4f GB", weightsPerRank / (double) SimState.GIB));
            }
        }
        fault("profile");
        long profileStart = System.nanoTime();
        for (int i = 0; i < ranks.size(); i++) {
            Rank r = ranks.get(i);
            if (world > 1) {
                alloc(r, platform.collectiveTag(), platform.collectiveBytes());
                if (platform.cuda()) {
                    // rank i runs on position i of CUDA_VISIBLE_DEVICES, NCCL's [cudaDev]
                    NcclDebugLines.of(env, r.ownerPid(), i, r.dp() * args.tp() + r.tp(), world, platform.collectiveBytes())
                            .forEach(log::raw);
                }
            }
            alloc(r, "profile", activationBytes);
        }
        sleep(stepMs);
        SimState s = store.read();
        long total = s.runtimeTotalBytes();
        double profileSecs = (System.nanoTime() - profileStart) / 1e9;
        long minBlocks = Long.MAX_VALUE;
        long blockBytes = (long) args.blockSize() * model.kvBytesPerTokenPerRank(args.tp());
        long[] available = new long[ranks.size()];
        for (int i = 0; i < ranks.size(); i++) {
            Rank r = ranks.get(i);
            store.release(r.device(), r.ownerPid(), "profile");
            long freeAfter = store.read().freeBytes(r.device());
            long nonTorch = (total - freeAfter) - weightsPerRank;
            long peak = weightsPerRank + activationBytes + Math.max(nonTorch, 0);
            long requested = (long) (total * args.utilization());
            available[i] = Math.max(0, (long) (total * args.utilization() - peak));
            log.debug(r.prefix(), platform.worker() + ":231", String.format(Locale.ROOT,
                    "Initial free memory: %.2f GiB; Requested memory: %.2f (util), %.2f GiB",
                    initFree[i] / (double) SimState.GIB, args.utilization(), requested / (double) SimState.GIB));
            log.debug(r.prefix(), platform.worker() + ":238", String.format(Locale.ROOT,
                    "Free memory after profiling: %.2f GiB (total), %.2f GiB (within requested)",
                    freeAfter / (double) SimState.GIB,
                    Math.max(0, requested - (peak - activationBytes)) / (double) SimState.GIB));
            log.debug(r.prefix(), platform.worker() + ":244", String.format(Locale.ROOT,
                    "Memory profiling takes %.2f seconds. Total non KV cache memory: %.2fGiB; "
                    + "torch peak memory increase: %.2fGiB; non-torch forward increase memory: %.2fGiB; "
                    + "weights memory: %.2fGiB.", profileSecs, peak / (double) SimState.GIB,
                    activationBytes / (double) SimState.GIB, Math.max(nonTorch, 0) / (double) SimState.GIB,
                    weightsPerRank / (double) SimState.GIB));
            if (!platform.cuda()) {
                // vllm-ascend's own line; CUDA vLLM prints only the KV cache figure below
                log.info(r.prefix(), platform.worker() + ":256", "Available memory: " + available[i]
                        + ", total memory: " + total);
            }
            log.info(r.prefix(), platform.worker() + ":257", String.format(Locale.ROOT,
                    "Available KV cache memory: %.2f GiB", available[i] / (double) SimState.GIB));
            minBlocks = Math.min(minBlocks, available[i] / blockBytes);
        }
        fault("kv");
        if (minBlocks <= 0) {
            fail(engine(0), "core.py:708", "ValueError: No available memory for the cache blocks. "
                    + "Try increasing `gpu_memory_utilization` when initializing the engine.");
        }
        long tokens = minBlocks * args.blockSize();
        if (tokens < model.maxModelLen()) {
            double needed = (double) model.maxModelLen() * model.kvBytesPerTokenPerRank(args.tp()) / SimState.GIB;
            fail(engine(0), "core.py:708", String.format(Locale.ROOT,
                    "ValueError: To serve at least one request with the models's max seq len (%d), "
                    + "(%.2f GiB KV cache is needed, which is larger than the available KV cache memory "
                    + "(%.2f GiB). Based on the available memory, the estimated maximum model length is %d. "
                    + "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
                    + "initializing the engine.", model.maxModelLen(), needed,
                    available[0] / (double) SimState.GIB, tokens));
        }
        for (Rank r : ranks) {
            alloc(r, "kv_cache", minBlocks * blockBytes);
        }
        kvTokens.set(tokens);
        for (int d = 0; d < args.dp(); d++) {
            log.info(engine(d), "kv_cache_utils.py:1087", String.format(Locale.ROOT,
                    "GPU KV cache size: %,d tokens", tokens));
            log.info(engine(d), "kv_cache_utils.py:1091", String.format(Locale.ROOT,
                    "Maximum concurrency for %,d tokens per request: %.2fx", model.maxModelLen(),
                    tokens / (double) model.maxModelLen()));
        }
        fault("graph");
        if (graphBytes > 0) {
            sleep(stepMs);
            for (Rank r : ranks) {
                alloc(r, "graph", graphBytes);
                log.info(r.prefix(), platform.runner() + ":3178", String.format(Locale.ROOT,
                        "Graph capturing finished in %d secs, took %.2f GiB",
                        Math.max(1, stepMs / 1000), graphBytes / (double) SimState.GIB));
            }
        }
        for (int d = 0; d < args.dp(); d++) {
            log.info(engine(d), "core.py:210", String.format(Locale.ROOT,
                    "init engine (profile, create kv cache, warmup model) took %.2f seconds",
                    (System.nanoTime() - t0) / 1e9));
        }
        fault("ready");
    }

    /** Takes bytes on the rank's device, or fails the way torch_npu reports an NPU OOM. */
    void alloc(Rank r, String tag, long bytes) throws IOException {
        try {
            store.allocate(r.device(), ownedBy(r, tag, bytes));
        } catch (SimStateStore.SimOutOfMemory e) {
            SimState s = store.read();
            long mine = s.device(r.device()).bytesOf(r.ownerPid());
            // phrasing of the OOM in vllm-log/vllm-ascend-264_deepseek-r1_ray_tp16_npu_oom.log
            fail(r.prefix(), "worker_base.py:581", String.format(Locale.ROOT,
                    "RuntimeError: " + platform.deviceWord() + " out of memory. Tried to allocate %.2f GiB (" + platform.deviceWord() + " %d; %.2f GiB total capacity; "
                    + "%.2f GiB already allocated; %.2f GiB current active; %.2f GiB free; %.2f GiB reserved in "
                    + "total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb "
                    + "to avoid fragmentation.", bytes / (double) SimState.GIB, r.device(),
                    s.runtimeTotalBytes() / (double) SimState.GIB, mine / (double) SimState.GIB,
                    mine / (double) SimState.GIB, e.free() / (double) SimState.GIB, mine / (double) SimState.GIB));
        }
    }

    /** An allocation owned by the rank's process. */
    static SimState.Allocation ownedBy(Rank r, String tag, long bytes) {
        return new SimState.Allocation(r.ownerPid(), "vllm-sim", tag, bytes, SimStateStore.startMillis(r.owner()));
    }

    private void fault(String phase) {
        String die = args.simOption("die-at", env, "HBM_SIM_VLLM_DIE_AT", "");
        if (phase.equals(die)) {
            fail(engine(0), "core.py:708", "RuntimeError: SIMULATED fault injected at start-up phase '"
                    + phase + "' (--sim-die-at / HBM_SIM_VLLM_DIE_AT)");
        }
        String hang = args.simOption("hang-at", env, "HBM_SIM_VLLM_HANG_AT", "");
        if (phase.equals(hang)) {
            log.warn(engine(0), "core.py:648", "SIMULATED hang at start-up phase '" + phase
                    + "' (--sim-hang-at / HBM_SIM_VLLM_HANG_AT): never becoming ready");
            sleep(Long.MAX_VALUE);
        }
    }

    private void fail(String proc, String where, String message) {
        log.error(engine(0), where, "EngineCore failed to start.");
        log.error(engine(0), where, "Traceback (most recent call last):");
        log.error(engine(0), where, "  File \"/usr/local/python3.11/site-packages/vllm/v1/engine/core.py\", line 699, in run_engine_core");
        log.error(proc, where, message);
        throw new EngineFailure(message);
    }

    static void sleep(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long gib(String v) {
        return Math.round(Double.parseDouble(v) * SimState.GIB);
    }

    /** Start-up failed; the message was printed. */
    static final class EngineFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        EngineFailure(String message) {
            super(message);
        }
    }
}

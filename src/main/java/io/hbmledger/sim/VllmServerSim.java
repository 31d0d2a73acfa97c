package io.hbmledger.sim;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * SIMULATOR: a vLLM-like server, {@code vllm serve MODEL ...}, launched by {@code sim/bin/vllm}.
 *
 * <p>It prints vllm-ascend V1 start-up log lines while taking memory from the simulated devices
 * ({@link VllmEngineSim}), then answers OpenAI-compatible HTTP/1.1 requests on 127.0.0.1
 * ({@link VllmHttpApi}). On SIGINT or SIGTERM it releases its memory, prints uvicorn's shutdown
 * lines and exits. Devices: {@code $ASCEND_RT_VISIBLE_DEVICES} (comma-separated NPU ids), else
 * NPUs 0..N-1. DEBUG lines (the memory split) appear with {@code VLLM_LOGGING_LEVEL=DEBUG}.
 *
 * <p>Simulator options ({@code --sim-NAME value}, or the environment variable named):
 * {@code home} ({@code HBM_SIM_HOME}), {@code weights-gib} ({@code HBM_SIM_WEIGHTS_GIB}),
 * {@code activation-gib}, {@code graph-gib}, {@code step-ms} ({@code HBM_SIM_STEP_MS}, default
 * 100), {@code slow-start-ms} ({@code HBM_SIM_VLLM_SLOW_START_MS}), {@code die-at} and
 * {@code hang-at} (phase init|load|profile|kv|graph|ready; {@code HBM_SIM_VLLM_DIE_AT},
 * {@code HBM_SIM_VLLM_HANG_AT}), {@code stop-ms} ({@code HBM_SIM_VLLM_STOP_MS}: delay before the
 * memory is released on SIGINT/SIGTERM), {@code prefill-ms} (default 30), {@code ms-per-token} (default 2),
 * {@code layers}, {@code kv-heads}, {@code head-dim}, {@code max-position} for a model given by name,
 * {@code worker-processes} ({@code HBM_SIM_VLLM_WORKER_PROCS=1}: one child process per rank owns
 * that rank's memory and pid, as vLLM's workers do).
 */
public final class VllmServerSim {

    private VllmServerSim() {
    }

    public static void main(String[] argv) {
        System.exit(run(argv, System.getenv(), System.out, System.err));
    }

    /** Runs the server; returns only on failure (the exit code), or blocks until killed. */
    static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
        if (java.util.Arrays.asList(argv).contains("--help") || java.util.Arrays.asList(argv).contains("-h")) {
            out.println("vllm SIMULATOR (hbm-ledger): vllm serve MODEL [--port P] [--tensor-parallel-size N] "
                    + "[--data-parallel-size N] [--gpu-memory-utilization U] [--api-key K] [--max-model-len N] "
                    + "[--enforce-eager] [--sim-* ...]; no NPU is used, memory comes from $HBM_SIM_HOME. "
                    + "See docs/readme-sim.md.");
            return 0;
        }
        VllmArgs args;
        SimStateStore store;
        try {
            args = VllmArgs.parse(argv, env);
            store = SimStateStore.locate(args.sim().get("home"));
        } catch (SimException e) {
            err.println("vllm (SIMULATOR): " + e.getMessage());
            return e.exitCode();
        }
        long pid = ProcessHandle.current().pid();
        boolean debug = "DEBUG".equalsIgnoreCase(env.getOrDefault("VLLM_LOGGING_LEVEL", "INFO"));
        VllmLog log = new VllmLog(out, err, debug, pid);
        SimPlatform platform;
        try {
            platform = SimPlatform.of(store.read());
        } catch (IOException e) {
            err.println("vllm (SIMULATOR): cannot read the simulated state: " + e);
            return 1;
        }
        log.warn(null, "hbm_ledger_sim.py:1", "SIMULATED vLLM server (hbm-ledger simulator, not vLLM): "
                + "no " + platform.deviceWord() + " is used; memory is taken from the simulated "
                + (platform.cuda() ? "NVIDIA" : "Ascend") + " host at " + store.home());
        if (platform.cuda()) {
            log.info(null, "__init__.py:239", "Automatically detected platform cuda.");
        } else {
            log.info(null, "__init__.py:36", "Available plugins for group vllm.platform_plugins:");
            log.info(null, "__init__.py:38", "- ascend -> vllm_ascend:register");
            log.info(null, "__init__.py:41", "All plugins in this group will be loaded. Set `VLLM_PLUGINS` to control which plugins to load.");
            log.info(null, "__init__.py:232", "Platform plugin ascend is activated");
        }
        log.info("APIServer", "api_server.py:1839", "vLLM API server version 0.11.0");
        log.info("APIServer", "utils.py:328", "non-default args: " + nonDefault(args));

        List<Integer> devices;
        SimModel model;
        try {
            devices = devices(env, store.read(), args.tp() * args.dp(), platform);
            model = SimModel.resolve(args, env);
        } catch (SimException e) {
            log.error("APIServer", "api_server.py:1839", e.getMessage());
            return e.exitCode();
        } catch (IOException | RuntimeException e) {
            log.error("APIServer", "api_server.py:1839", "cannot read the model or the simulated state: " + e);
            return 1;
        }
        log.info("APIServer", "hbm_ledger_sim.py:2", String.format(Locale.ROOT,
                "SIMULATED model weights: %d bytes (%.4f GiB) from %s; " + platform.deviceWord() + "s %s", model.weightBytes(),
                model.weightBytes() / (double) SimState.GIB, model.weightSource(), devices));

        HttpServer server;
        try {
            String host = args.host().equals("localhost") || args.host().startsWith("127.") ? args.host() : "127.0.0.1";
            server = HttpServer.create(new InetSocketAddress(host, args.port()), 64);
        } catch (BindException e) {
            log.error("APIServer", "api_server.py:1900", "OSError: [Errno 98] Address already in use (port "
                    + args.port() + ")");
            return 1;
        } catch (IOException e) {
            log.error("APIServer", "api_server.py:1900", "OSError: " + e.getMessage());
            return 1;
        }

        List<Process> workers = new ArrayList<>();
        if (Boolean.parseBoolean(args.simOption("worker-processes", env, "HBM_SIM_VLLM_WORKER_PROCS", "false"))
                || "1".equals(env.get("HBM_SIM_VLLM_WORKER_PROCS"))) {
            // one process per rank owns that rank's memory, as vLLM's worker processes do; they stay
            // in this process group, so a group kill ends them and a lone kill -9 of the server
            // leaves them behind holding memory, like orphaned vLLM workers
            try {
                for (int i = 0; i < args.tp() * args.dp(); i++) {
                    workers.add(new ProcessBuilder("sleep", "infinity")
                            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .redirectError(ProcessBuilder.Redirect.DISCARD).start());
                }
            } catch (IOException e) {
                workers.forEach(Process::destroyForcibly);
                log.error("APIServer", "api_server.py:1839", "cannot start simulated worker processes: " + e);
                return 1;
            }
        }
        AtomicBoolean serving = new AtomicBoolean(false);
        long stopMs = Long.parseLong(args.simOption("stop-ms", env, "HBM_SIM_VLLM_STOP_MS", "0"));
        ExecutorService pool = Executors.newFixedThreadPool(16);
        Thread hook = new Thread(() -> {
            if (serving.get()) {
                log.info("APIServer", "launcher.py:99", "Shutting down FastAPI HTTP server.");
                server.stop(0);
                pool.shutdownNow();
            }
            // a real server takes a while to hand its memory back; collectors must poll for it
            VllmEngineSim.sleep(stopMs);
            try {
                store.releaseAll(pid);
                for (Process w : workers) {
                    store.releaseAll(w.pid());
                    w.destroy();
                }
            } catch (IOException | RuntimeException e) {
                err.println("vllm (SIMULATOR): could not release simulated memory: " + e);
            }
            if (serving.get()) {
                log.uvicorn("Shutting down");
                log.uvicorn("Waiting for application shutdown.");
                log.uvicorn("Application shutdown complete.");
                log.uvicorn("Finished server process [" + pid + "]");
            }
        }, "vllm-sim-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        List<ProcessHandle> owners = new ArrayList<>();
        workers.forEach(w -> owners.add(w.toHandle()));
        VllmEngineSim engine = new VllmEngineSim(args, model, store, log, env, pid, devices, owners, platform);
        try {
            engine.start();
        } catch (VllmEngineSim.EngineFailure e) {
            log.error("APIServer", "api_server.py:1900", "RuntimeError: Engine core initialization failed. "
                    + "See root cause above. Failed core proc(s): {}");
            return 1;
        } catch (IOException e) {
            log.error("APIServer", "api_server.py:1900", "simulated state failed: " + e);
            return 1;
        }

        long prefillMs = Long.parseLong(args.simOption("prefill-ms", env, null, "30"));
        long msPerToken = Long.parseLong(args.simOption("ms-per-token", env, null, "2"));
        server.createContext("/", new VllmHttpApi(args, model, engine, store, log, pid, prefillMs, msPerToken));
        server.setExecutor(pool);
        server.start();
        serving.set(true);
        log.info("APIServer", "api_server.py:1880", "Starting vLLM API server 0 on http://"
                + server.getAddress().getHostString() + ":" + server.getAddress().getPort());
        log.uvicorn("Started server process [" + pid + "]");
        log.uvicorn("Waiting for application startup.");
        log.uvicorn("Application startup complete.");
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** Device ids for ranks: ASCEND_RT_VISIBLE_DEVICES (CUDA_VISIBLE_DEVICES on a GPU host), else 0..N-1; checked against the host. */
    static List<Integer> devices(Map<String, String> env, SimState state, int needed) {
        return devices(env, state, needed, SimPlatform.of(state));
    }

    static List<Integer> devices(Map<String, String> env, SimState state, int needed, SimPlatform platform) {
        List<Integer> ids = new ArrayList<>();
        String var = platform.visibleEnv();
        String visible = env.get(var);
        if (visible != null && !visible.isBlank()) {
            for (String s : visible.split(",")) {
                try {
                    int id = Integer.parseInt(s.strip());
                    state.device(id);
                    ids.add(id);
                } catch (NumberFormatException e) {
                    throw new SimException("RuntimeError: " + var + "='" + visible
                            + "' is not a list of " + platform.deviceWord() + " ids", 1);
                } catch (IllegalArgumentException e) {
                    throw new SimException("RuntimeError: " + var + " names " + s.strip()
                            + ", but " + e.getMessage(), 1);
                }
            }
        } else {
            for (SimState.SimDevice d : state.devices()) {
                ids.add(d.id());
            }
        }
        if (ids.size() < needed) {
            throw new SimException("RuntimeError: tensor_parallel_size x data_parallel_size = " + needed
                    + " needs " + needed + " " + platform.deviceWord() + "s, but only " + ids.size() + " are visible ("
                    + (visible != null ? var + "=" + visible : "simulated host") + ")", 1);
        }
        return List.copyOf(ids.subList(0, needed));
    }

    /** The "non-default args" dict as vLLM prints it (api_key included, as vLLM does). */
    private static String nonDefault(VllmArgs args) {
        StringJoiner j = new StringJoiner(", ", "{", "}");
        j.add("'model': '" + args.model() + "'");
        for (Map.Entry<String, String> e : args.nonDefault().entrySet()) {
            String key = e.getKey().replaceFirst("^--", "").replace('-', '_');
            String v = e.getValue();
            boolean number = v.matches("-?\\d+(\\.\\d+)?");
            boolean bool = v.equals("true") || v.equals("false");
            j.add("'" + key + "': " + (number ? v : bool ? (v.equals("true") ? "True" : "False") : "'" + v + "'"));
        }
        return j.toString();
    }
}

package io.hbmledger.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SIMULATOR: the command line of {@code vllm serve MODEL [options]} as the simulated server reads it.
 *
 * <p>vLLM's own options that matter for memory are read; any other {@code --option [value]} is
 * accepted and ignored, as the simulator cannot act on it. Options starting with {@code --sim-}
 * belong to the simulator. Every option may be given as {@code --name value} or {@code --name=value}.
 *
 * @param model        model directory or name (the positional argument)
 * @param servedName   {@code --served-model-name}, else the model argument
 * @param host         {@code --host} (the simulator always binds to 127.0.0.1 unless this is a loopback name)
 * @param port         {@code --port}, default 8000
 * @param tp           {@code --tensor-parallel-size} / {@code -tp}, default 1
 * @param dp           {@code --data-parallel-size} / {@code -dp}, default 1
 * @param utilization  {@code --gpu-memory-utilization}, default 0.9
 * @param apiKey       {@code --api-key} or {@code $VLLM_API_KEY}, null when none
 * @param maxModelLen  {@code --max-model-len}, null for the model's own
 * @param blockSize    {@code --block-size}, default 128 (vllm-ascend's default)
 * @param enforceEager {@code --enforce-eager}: no graph capture, no graph pool
 * @param nonDefault   the options as given, for the "non-default args" log line (values as typed)
 * @param sim          the {@code --sim-*} options, without the prefix
 */
public record VllmArgs(String model, String servedName, String host, int port, int tp, int dp,
        double utilization, String apiKey, Integer maxModelLen, int blockSize, boolean enforceEager,
        Map<String, String> nonDefault, Map<String, String> sim) {

    /** Parses {@code serve MODEL [options]}; throws {@link SimException} (exit 2) on bad usage. */
    public static VllmArgs parse(String[] argv, Map<String, String> env) {
        List<String> args = new ArrayList<>(List.of(argv));
        if (args.isEmpty() || !args.get(0).equals("serve")) {
            throw new SimException("usage: vllm serve MODEL [--port P] [--tensor-parallel-size N] "
                    + "[--gpu-memory-utilization U] [--api-key K] [--sim-* ...]  (SIMULATOR)", 2);
        }
        args.remove(0);
        String model = null;
        Map<String, String> opts = new LinkedHashMap<>();
        Map<String, String> sim = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("-")) {
                if (model != null) {
                    throw new SimException("vllm serve (SIMULATOR): unexpected argument '" + a
                            + "' after model '" + model + "'", 2);
                }
                model = a;
                continue;
            }
            String name;
            String value;
            int eq = a.indexOf('=');
            if (eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            } else {
                name = a;
                boolean flag = FLAGS.contains(name) || (i + 1 >= args.size())
                        || (args.get(i + 1).startsWith("--"));
                value = flag ? "true" : args.get(++i);
            }
            name = ALIASES.getOrDefault(name, name);
            if (name.equals("--model")) {
                model = value;
            } else if (name.startsWith("--sim-")) {
                sim.put(name.substring("--sim-".length()), value);
            } else {
                opts.put(name, value);
            }
        }
        if (model == null || model.isBlank()) {
            throw new SimException("vllm serve (SIMULATOR): no model given; usage: vllm serve MODEL ...", 2);
        }
        try {
            String apiKey = opts.containsKey("--api-key") ? opts.get("--api-key") : env.get("VLLM_API_KEY");
            return new VllmArgs(model, opts.getOrDefault("--served-model-name", model),
                    opts.getOrDefault("--host", "127.0.0.1"),
                    Integer.parseInt(opts.getOrDefault("--port", "8000")),
                    Integer.parseInt(opts.getOrDefault("--tensor-parallel-size", "1")),
                    Integer.parseInt(opts.getOrDefault("--data-parallel-size", "1")),
                    Double.parseDouble(opts.getOrDefault("--gpu-memory-utilization", "0.9")),
                    apiKey,
                    opts.containsKey("--max-model-len") ? Integer.valueOf(opts.get("--max-model-len")) : null,
                    Integer.parseInt(opts.getOrDefault("--block-size", "128")),
                    Boolean.parseBoolean(opts.getOrDefault("--enforce-eager", "false")),
                    opts, sim);
        } catch (NumberFormatException e) {
            throw new SimException("vllm serve (SIMULATOR): a numeric option has a bad value: " + e.getMessage(), 2);
        }
    }

    /** A {@code --sim-NAME} value, else the environment variable, else the default. */
    public String simOption(String name, Map<String, String> env, String envName, String dflt) {
        if (sim.containsKey(name)) {
            return sim.get(name);
        }
        if (envName != null && env.get(envName) != null) {
            return env.get(envName);
        }
        return dflt;
    }

    private static final List<String> FLAGS = List.of("--enforce-eager", "--trust-remote-code",
            "--disable-log-stats", "--disable-log-requests", "--enable-prefix-caching",
            "--no-enable-prefix-caching", "--enable-chunked-prefill", "--enable-expert-parallel",
            "--enable-auto-tool-choice", "--sim-no-graph");

    private static final Map<String, String> ALIASES = Map.of(
            "-tp", "--tensor-parallel-size",
            "-dp", "--data-parallel-size",
            "-pp", "--pipeline-parallel-size",
            "-q", "--quantization");
}

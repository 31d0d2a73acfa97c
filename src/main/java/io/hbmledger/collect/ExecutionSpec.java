package io.hbmledger.collect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How to start one serving execution.
 *
 * @param command     the serving command as an argument list, e.g. vllm serve /models/Qwen --port 8000
 * @param port        HTTP port (from --port in the command unless given)
 * @param model       model path or name (the argument after "serve", or --model)
 * @param tp          tensor-parallel size (--tensor-parallel-size / -tp), 1 when absent
 * @param dp          data-parallel size (--data-parallel-size / -dp), 1 when absent
 * @param ep          --enable-expert-parallel present
 * @param devices     logical device ids, exported as ASCEND_RT_VISIBLE_DEVICES
 * @param env         extra environment for the server
 * @param msprofHz    wrap the command in msprof with --sys-hardware-mem-freq=msprofHz, or null for no wrapper
 * @param workDir     working directory for the command on the serving host (relative model paths resolve here)
 */
public record ExecutionSpec(List<String> command, int port, String model, int tp, int dp, boolean ep,
                            List<Integer> devices, Map<String, String> env, Integer msprofHz, String workDir) {

    /** Default vLLM port. */
    public static final int DEFAULT_PORT = 8000;

    /**
     * Reads port, model, TP, DP and EP from a vLLM command line; {@code portOverride} and
     * {@code devices} win when given. Devices default to 0..tp*dp-1.
     */
    public static ExecutionSpec fromCommand(List<String> command, Integer portOverride, List<Integer> devices,
                                            Map<String, String> env, Integer msprofHz, String workDir) {
        if (command.isEmpty()) {
            throw new ArgumentException("no serving command given; expected e.g. '-- vllm serve /models/NAME --port 8000'");
        }
        Integer port = intOption(command, "--port", null);
        String model = stringOption(command, "--model", null);
        int serve = command.indexOf("serve");
        if (model == null && serve >= 0 && serve + 1 < command.size() && !command.get(serve + 1).startsWith("-")) {
            model = command.get(serve + 1);
        }
        int tp = intOption(command, "--tensor-parallel-size", intOption(command, "-tp", 1));
        int dp = intOption(command, "--data-parallel-size", intOption(command, "-dp", 1));
        boolean ep = command.contains("--enable-expert-parallel");
        int p = portOverride != null ? portOverride : port != null ? port : DEFAULT_PORT;
        if (port != null && portOverride != null && !port.equals(portOverride)) {
            throw new ArgumentException("--port " + portOverride + " given to hbm-ledger but the command says --port " + port
                    + "; give one of them");
        }
        if (p < 1 || p > 65535) {
            throw new ArgumentException("port " + p + ": expected a TCP port, 1 to 65535");
        }
        if (tp < 1 || dp < 1) {
            throw new ArgumentException("the command's tensor- and data-parallel sizes must be >= 1, found TP " + tp + ", DP " + dp);
        }
        int pp = pipelineSize(command);
        // vLLM runs tp x pp workers per data-parallel rank, and --data-parallel-size-local of those
        // ranks on this node (vllm/engine/arg_utils.py: world_size = pipeline x tensor parallel size)
        int dpLocal = intOption(command, "--data-parallel-size-local", intOption(command, "-dpl", dp));
        int needed = tp * pp * dpLocal;
        String sizes = "TP " + tp + (pp > 1 ? " x PP " + pp : "") + (dpLocal > 1 ? " x DP " + dpLocal : "");
        List<Integer> devs = devices;
        if (devs == null || devs.isEmpty()) {
            devs = new ArrayList<>();
            for (int i = 0; i < needed; i++) {
                devs.add(i);
            }
        } else if (devs.size() < needed) {
            throw new ArgumentException("the command needs " + needed + " devices (" + sizes + ") but --devices gives "
                    + devs.size() + " (" + devs + "); give " + needed + " device ids or lower the parallel sizes");
        } else if (devs.size() > needed) {
            // vLLM's workers take the first `needed` visible devices; the rest would be locked and
            // sampled for nothing, and the run would name devices no rank ran on
            throw new ArgumentException("the command uses " + needed + (needed == 1 ? " device (" : " devices (") + sizes + ") but --devices gives "
                    + devs.size() + " (" + devs + "); vLLM would leave " + devs.subList(needed, devs.size())
                    + " idle. Give exactly " + needed + (needed == 1 ? " device id" : " device ids") + ", e.g. --devices "
                    + String.join(",", devs.subList(0, needed).stream().map(String::valueOf).toList())
                    + ", or raise the parallel sizes");
        }
        return new ExecutionSpec(List.copyOf(command), p, model, tp, dp, ep, List.copyOf(devs), Map.copyOf(env),
                msprofHz, workDir);
    }

    /** Pipeline-parallel size of a vLLM command line (--pipeline-parallel-size / -pp), 1 when not given. */
    public static int pipelineSize(List<String> command) {
        int pp = intOption(command, "--pipeline-parallel-size", intOption(command, "-pp", 1));
        if (pp < 1) {
            throw new ArgumentException("--pipeline-parallel-size " + pp + ": expected a whole number >= 1");
        }
        return pp;
    }

    /** Pipeline-parallel size of this command, 1 when not given. */
    public int pp() {
        return pipelineSize(command);
    }

    /** The command with --port added when the user gave it to hbm-ledger only. */
    public List<String> effectiveCommand() {
        if (intOption(command, "--port", null) != null || !command.contains("serve")) {
            return command;
        }
        List<String> c = new ArrayList<>(command);
        c.add("--port");
        c.add(Integer.toString(port));
        return c;
    }

    /** The value of --api-key in the command, or null: the collector needs it to send requests. */
    public String apiKey() {
        return stringOption(command, "--api-key", null);
    }

    private static String stringOption(List<String> argv, String name, String dflt) {
        for (int i = 0; i < argv.size(); i++) {
            String a = argv.get(i);
            if (a.equals(name) && i + 1 < argv.size()) {
                return argv.get(i + 1);
            }
            if (a.startsWith(name + "=")) {
                return a.substring(name.length() + 1);
            }
        }
        return dflt;
    }

    private static Integer intOption(List<String> argv, String name, Integer dflt) {
        String v = stringOption(argv, name, null);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new ArgumentException(name + " expects a whole number, found '" + v + "'");
        }
    }
}

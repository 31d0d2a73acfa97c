package io.hbmledger.cli;

import io.hbmledger.collect.ArgumentException;
import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.ExecutionSpec;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.LocalHost;
import io.hbmledger.collect.DeviceSmi;
import io.hbmledger.collect.ServerClient;
import io.hbmledger.collect.nodes.NodeExecutions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code hbm-ledger exec start|stop|status|list|logs}: managed serving executions on this host; list,
 * status and stop also over the nodes of a deployment ({@code --host} repeated, {@code --hostfile},
 * {@code --ray-head}), each line prefixed by its node.
 */
@Command(name = "exec", mixinStandardHelpOptions = true,
        header = "Start, stop and inspect managed serving executions.",
        description = "Managed serving executions: start a serving command (normally 'vllm serve ...') with an id,"
            + " its own runtime directory and process group; stop it (SIGINT, SIGTERM, SIGKILL to the group);"
            + " show its status, list executions, show its log. list, status and stop take --host (repeated), --hostfile"
            + " or --ray-head to ask every node of a deployment at once, each line prefixed by its node.",
        subcommands = {ExecCommand.Start.class, ExecCommand.Stop.class, ExecCommand.Status.class,
            ExecCommand.ListCmd.class, ExecCommand.Logs.class})
public final class ExecCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The state-directory option shared by every verb. */
    static final class StateDir {
        @Option(names = "--state-dir", paramLabel = "DIR",
                description = "where executions are recorded (default: $HBM_LEDGER_STATE or ~/.hbm-ledger/executions)")
        Path stateDir;

        ExecutionStore store() {
            return ExecutionStore.resolve(stateDir, System.getenv()).requireDirectory();
        }

        Executions executions() {
            ExecutionStore store = store();
            LocalHost host = new LocalHost();
            try {
                return new Executions(host, store, store.root().toString(), io.hbmledger.collect.Accelerator.detect(host));
            } catch (IOException e) {
                throw new io.hbmledger.collect.CollectException("cannot look for npu-smi / nvidia-smi on PATH: " + e.getMessage(), e);
            }
        }
    }

    /** A verb over several nodes, its lines prefixed by node; bad targets or ids exit 2. */
    interface OnNodes {
        int run(NodeExecutions n) throws IOException;
    }

    static int onNodes(StateDir state, ExecTargets targets, CommandSpec spec, String verb, OnNodes what) throws IOException {
        List<io.hbmledger.collect.Host> opened = new ArrayList<>();
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        try {
            ExecutionStore store = state.store();
            List<io.hbmledger.collect.nodes.Node> nodes = targets.open(store, opened);
            int rc = what.run(new NodeExecutions(nodes, new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8)));
            PrintWriter out = spec.commandLine().getOut();
            out.print(buf.toString(java.nio.charset.StandardCharsets.UTF_8));
            out.flush();
            return rc;
        } catch (CollectException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("hbm-ledger exec " + verb + ": " + e.getMessage());
            return Main.EXIT_BAD_INPUT;
        } finally {
            for (io.hbmledger.collect.Host h : opened) {
                h.close();
            }
        }
    }

    static List<Integer> parseDevices(String devices) {
        if (devices == null || devices.isBlank()) {
            return null;
        }
        List<Integer> out = new ArrayList<>();
        for (String d : devices.split(",")) {
            int id;
            try {
                id = Integer.parseInt(d.strip());
            } catch (NumberFormatException e) {
                throw new ArgumentException("--devices expects device ids separated by commas, like 0,1,2,3; found '" + devices + "'");
            }
            if (id < 0) {
                throw new ArgumentException("--devices " + devices + ": expected device ids >= 0 (as in ASCEND_RT_VISIBLE_DEVICES), found " + id);
            }
            if (out.contains(id)) {
                throw new ArgumentException("--devices " + devices + ": device " + id + " is listed twice; give each rank's own device, in rank order");
            }
            out.add(id);
        }
        return out;
    }

    static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = {"Start a serving command as a managed execution (with VLLM_LOGGING_LEVEL=DEBUG unless --env sets it,"
                + " so that vLLM prints its whole memory split) and wait until /health and /v1/models answer.",
                "Example: hbm-ledger exec start --devices 0,1 --msprof -- vllm serve /models/Qwen2.5-7B -tp 2 --port 8000"},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:started (and ready unless --no-wait)",
                "1:it died while starting, or was not ready in time or refused the API key (then it is left running)",
                "2:bad arguments"})
    static final class Start implements Callable<Integer> {
        @Mixin
        StateDir state;
        @Option(names = "--port", paramLabel = "PORT", description = "server port (default: --port of the command, else 8000)")
        Integer port;
        @Option(names = "--devices", paramLabel = "IDS", description = "logical device ids, e.g. 0,1 (ASCEND_RT_VISIBLE_DEVICES); default 0..TP*DP-1")
        String devices;
        @Option(names = "--env", paramLabel = "NAME=VALUE", description = "extra environment for the server")
        Map<String, String> env = new LinkedHashMap<>();
        @Option(names = "--msprof", arity = "0..1", fallbackValue = "50", paramLabel = "HZ",
                description = "run under msprof with --sys-hardware-mem=on at this frequency (default ${FALLBACK-VALUE} Hz)")
        Integer msprofHz;
        @Option(names = "--id", paramLabel = "ID", description = "execution id (default: generated)")
        String id;
        @Option(names = "--no-wait", description = "return once started, without waiting for readiness")
        boolean noWait;
        @Option(names = "--ready-timeout", paramLabel = "SECONDS", defaultValue = "1800", description = "default ${DEFAULT-VALUE}")
        double readyTimeout;
        @Option(names = "--api-key-env", paramLabel = "VAR", description = "environment variable holding the server's API key, for"
                + " the readiness probe (default: the command's --api-key, else VLLM_API_KEY from --env or this environment)")
        String apiKeyEnv;
        @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "the serving command and its arguments, after --")
        List<String> command;
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try {
                Executions ex = state.executions();
                Map<String, String> serverEnv = new LinkedHashMap<>(env);
                // as collect does: vLLM V1 prints its memory split (non-torch, activation peak) only at DEBUG,
                // and a later 'collect --attach' reads it from this log
                serverEnv.putIfAbsent("VLLM_LOGGING_LEVEL", "DEBUG");
                ExecutionSpec es = ExecutionSpec.fromCommand(command, port, parseDevices(devices), serverEnv, msprofHz,
                        Path.of("").toAbsolutePath().toString());
                // an --api-key-env naming an unset variable is a bad argument: refused before anything starts
                String key = noWait ? null : apiKey(es);
                ex.store().prepare();
                String execId = id != null ? id : ex.store().newId();
                if (ex.store().find(execId).isPresent()) {
                    err.println("hbm-ledger exec start: execution " + execId + " already exists in " + ex.store().root());
                    return Main.EXIT_BAD_INPUT;
                }
                ExecutionRecord rec = ex.start(es, execId, "exec start");
                out.println(rec.id());
                out.flush();
                if (noWait) {
                    return 0;
                }
                try {
                    ex.awaitReady(rec, new ServerClient(ex.host().reach(rec.port()), key), seconds(readyTimeout),
                            "give it to the probe with --api-key-env VAR (or in the command as --api-key)");
                } catch (CollectException e) {
                    String left = ex.alive(rec) ? "\nThe execution is left running; stop it with 'hbm-ledger exec stop " + rec.id()
                            + (state.stateDir != null ? " --state-dir " + state.stateDir : "") + "'." : "";
                    err.println("hbm-ledger exec start: " + e.getMessage() + left);
                    return 1;
                }
                err.println("execution " + rec.id() + " is ready on port " + rec.port() + " (process group " + rec.pgid() + ")");
                return 0;
            } catch (ArgumentException | IllegalArgumentException e) {
                err.println("hbm-ledger exec start: " + e.getMessage());
                return Main.EXIT_BAD_INPUT;
            } catch (CollectException e) {
                // the command was fine; starting it failed
                err.println("hbm-ledger exec start: " + e.getMessage());
                return 1;
            }
        }

        /** The key the readiness probe sends: --api-key-env, else the command's --api-key, else VLLM_API_KEY. */
        private String apiKey(ExecutionSpec es) {
            if (apiKeyEnv != null) {
                String v = System.getenv(apiKeyEnv);
                if (v == null) {
                    throw new ArgumentException("--api-key-env " + apiKeyEnv + " names a variable that is not set");
                }
                return v;
            }
            if (es.apiKey() != null) {
                return es.apiKey();
            }
            return env.containsKey("VLLM_API_KEY") ? env.get("VLLM_API_KEY") : System.getenv("VLLM_API_KEY");
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Stop an execution: SIGINT to its process group, then SIGTERM, then SIGKILL; then check with npu-smi that its devices were released.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:stopped", "1:still alive after SIGKILL, or devices not released", "2:unknown execution"})
    static final class Stop implements Callable<Integer> {
        @Mixin
        StateDir state;
        @Mixin
        ExecTargets targets;
        @Parameters(paramLabel = "EXECUTION_ID", arity = "1..*", description = "one execution; with --host / --hostfile /"
                + " --ray-head one or more, each stopped on its own node, all at once")
        List<String> ids;
        @Option(names = "--int-timeout", paramLabel = "SECONDS", defaultValue = "30", description = "wait after SIGINT (default ${DEFAULT-VALUE})")
        double intTimeout;
        @Option(names = "--term-timeout", paramLabel = "SECONDS", defaultValue = "15", description = "wait after SIGTERM (default ${DEFAULT-VALUE})")
        double termTimeout;
        @Option(names = "--release-timeout", paramLabel = "SECONDS", defaultValue = "30", description = "wait for npu-smi to drop its processes (default ${DEFAULT-VALUE})")
        double releaseTimeout;
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter err = spec.commandLine().getErr();
            if (targets.any()) {
                return onNodes(state, targets, spec, "stop", n -> n.stop(ids, new Executions.StopTimeouts(seconds(intTimeout),
                        seconds(termTimeout), Duration.ofSeconds(5), seconds(releaseTimeout))));
            }
            if (ids.size() > 1) {
                err.println("hbm-ledger exec stop: " + ids.size() + " execution ids without --host: stop one at a time here,"
                        + " or name their hosts (--host, --hostfile, --ray-head)");
                return Main.EXIT_BAD_INPUT;
            }
            String id = ids.get(0);
            try {
                Executions ex = state.executions();
                ExecutionRecord rec = ex.store().get(id);
                String tool = ex.accelerator().tool();
                DeviceSmi smi = ex.host().hasCommand(tool) ? ex.accelerator().smi(ex.host(), Duration.ofSeconds(30)) : null;
                Executions.StopReport r = ex.stop(rec, new Executions.StopTimeouts(seconds(intTimeout), seconds(termTimeout),
                        Duration.ofSeconds(5), seconds(releaseTimeout)), smi);
                spec.commandLine().getOut().println(id + ": " + r.detail());
                return r.stopped() && !Boolean.FALSE.equals(r.devicesReleased()) ? 0 : 1;
            } catch (CollectException | IllegalArgumentException e) {
                err.println("hbm-ledger exec stop: " + e.getMessage());
                return Main.EXIT_BAD_INPUT;
            }
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show an execution's record, whether it is alive and whether it answers.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:shown, alive or not", "2:unknown execution, or a state directory that cannot be used"})
    static final class Status implements Callable<Integer> {
        @Mixin
        StateDir state;
        @Mixin
        ExecTargets targets;
        @Parameters(paramLabel = "EXECUTION_ID", arity = "1..*", description = "one execution; with --host / --hostfile /"
                + " --ray-head one or more, each asked on its own node")
        List<String> ids;
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            if (targets.any()) {
                return onNodes(state, targets, spec, "status", n -> n.status(ids));
            }
            if (ids.size() > 1) {
                spec.commandLine().getErr().println("hbm-ledger exec status: " + ids.size() + " execution ids without --host:"
                        + " one at a time here, or name their hosts (--host, --hostfile, --ray-head)");
                return Main.EXIT_BAD_INPUT;
            }
            String id = ids.get(0);
            try {
                Executions ex = state.executions();
                ExecutionRecord rec = ex.store().get(id);
                boolean alive = ex.alive(rec);
                out.println("id:        " + rec.id());
                out.println("state:     " + rec.state() + (alive ? " (process group " + rec.pgid() + " alive)" : " (no process left)"));
                if (alive) {
                    ServerClient c = new ServerClient(ex.host().reach(rec.port()), null);
                    int models = c.status("/v1/models", Duration.ofSeconds(3));
                    out.println("answers:   /health " + (c.answers("/health", Duration.ofSeconds(3)) ? "yes" : "no")
                            + ", /v1/models " + (models == 200 ? "yes" : models == 401 || models == 403
                                    ? "yes, " + models + " without an API key (the server is guarded by --api-key)" : "no"));
                }
                out.println("port:      " + rec.port());
                out.println("model:     " + rec.model());
                out.println("tp/dp/ep:  " + rec.tp() + "/" + rec.dp() + "/" + rec.ep());
                out.println("devices:   " + rec.devices());
                out.println("started:   " + rec.started() + (rec.stopped() != null ? ", stopped " + rec.stopped() : ""));
                out.println("runtime:   " + rec.runtimeDir());
                out.println("msprof:    " + (rec.msprofOutput() == null ? "no" : rec.runtimeDir() + "/" + rec.msprofOutput()));
                out.println("command:   " + String.join(" ", rec.command()));
                return 0;
            } catch (CollectException | IllegalArgumentException e) {
                spec.commandLine().getErr().println("hbm-ledger exec status: " + e.getMessage());
                return Main.EXIT_BAD_INPUT;
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the recorded executions.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:listed (also when there is none)", "2:a state directory that cannot be used"})
    static final class ListCmd implements Callable<Integer> {
        @Mixin
        StateDir state;
        @Mixin
        ExecTargets targets;
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            if (targets.any()) {
                return onNodes(state, targets, spec, "list", NodeExecutions::list);
            }
            Executions ex = state.executions();
            List<ExecutionRecord> all = ex.store().list();   // a damaged record stops the list before its heading
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-28s %-10s %-6s %-8s %-30s %s%n", "ID", "STATE", "ALIVE", "PORT", "STARTED", "MODEL");
            for (ExecutionRecord r : all) {
                out.printf("%-28s %-10s %-6s %-8d %-30s %s%n", r.id(), r.state(), ex.alive(r) ? "yes" : "no", r.port(),
                        r.started(), r.model());
            }
            return 0;
        }
    }

    @Command(name = "logs", mixinStandardHelpOptions = true, description = "Print the last lines of an execution's log (secrets masked).",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:printed", "2:unknown execution, or a state directory that cannot be used"})
    static final class Logs implements Callable<Integer> {
        @Mixin
        StateDir state;
        @Parameters(paramLabel = "EXECUTION_ID")
        String id;
        @Option(names = {"-n", "--lines"}, paramLabel = "N", defaultValue = "50", description = "number of lines (default ${DEFAULT-VALUE})")
        int lines;
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            try {
                Executions ex = state.executions();
                PrintWriter out = spec.commandLine().getOut();
                out.print(ex.tail(ex.store().get(id), lines));
                // picocli's writer flushes on println only: without this the lines are lost at exit
                out.flush();
                return 0;
            } catch (CollectException | IllegalArgumentException e) {
                spec.commandLine().getErr().println("hbm-ledger exec logs: " + e.getMessage());
                return Main.EXIT_BAD_INPUT;
            }
        }
    }
}

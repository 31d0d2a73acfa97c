package io.hbmledger.cli;

import io.hbmledger.collect.Accelerator;
import io.hbmledger.collect.ArgumentException;
import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.CollectSettings;
import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.GpuDevices;
import io.hbmledger.collect.NvidiaSmi;
import io.hbmledger.collect.Collector;
import io.hbmledger.collect.ExecutionSpec;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.Host;
import io.hbmledger.collect.LocalHost;
import io.hbmledger.collect.Workload;
import io.hbmledger.collect.ssh.SshHost;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code hbm-ledger collect}: take the evidence of one serving execution into a run directory. */
@Command(name = "collect", mixinStandardHelpOptions = true,
        // picocli lists a verb by its header: one sentence that fits the verb list
        header = "Collect a vLLM server's memory evidence into a run directory.",
        // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
        description = {
            "Collect memory evidence of a vLLM server into a run directory: run.json plus the raw files, for"
                + " 'hbm-ledger analyze RUN_DIR'.",
            "Standalone: preflight, idle baseline, start under msprof (vLLM log level DEBUG), ready samples, a load with"
                + " npu-smi sampled throughout, after samples, stop, msprof export, copy of the execution's runtime"
                + " directory, config.json and safetensors headers. On NVIDIA hosts (nvidia-smi, no npu-smi; or"
                + " --accelerator nvidia) the same phases with nvidia-smi's CSV queries and no msprof.",
            "",
            "  hbm-ledger collect --out runs/q --devices 0,1 -- \\",
            "      vllm serve /models/Qwen2.5-7B -tp 2 --port 8000",
            "  hbm-ledger collect --out runs/a --attach EXECUTION_ID   (left running)",
            "  hbm-ledger collect --resume runs/a       (after 'hbm-ledger exec stop ID')",
            "  hbm-ledger collect --host root@n0 --host root@n1 --out runs/mn -- \\",
            "      vllm serve /models/NAME -tp 4 --data-parallel-rank {node_rank}",
            "  hbm-ledger collect --resume runs/mn     (several nodes: hosts from run.json)",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:complete", "1:failed (run.json says where)", "2:refused: bad arguments, busy devices, port in use, wrong execution",
            "3:incomplete (run.json lists what is missing)", "130/143:interrupted (what this run started was stopped)"})
public final class CollectCommand implements Callable<Integer> {

    static final class Mode {
        @Option(names = "--attach", paramLabel = "EXECUTION_ID", description = "measure a running execution and leave it running")
        String attach;
        @Option(names = "--resume", paramLabel = "RUN_DIR", description = "continue a run after its execution was stopped: export and add msprof data")
        Path resume;
    }

    @ArgGroup(exclusive = true)
    Mode mode = new Mode();

    @Option(names = "--out", paramLabel = "RUN_DIR", description = "new run directory (default: runs/run-YYYYMMDD-HHMMSS)")
    Path out;
    @Option(names = "--execution", paramLabel = "EXECUTION_ID", description = "with --resume: the execution the run must belong to")
    String expectedExecution;
    @Option(names = "--state-dir", paramLabel = "DIR", description = "execution records (default: $HBM_LEDGER_STATE or ~/.hbm-ledger/executions)")
    Path stateDir;
    @Option(names = "--devices", paramLabel = "IDS", description = "logical device ids, e.g. 0,1 (default 0..TP*DP-1)")
    String devices;
    @Option(names = "--port", paramLabel = "PORT", description = "server port (default: the command's --port, else 8000)")
    Integer port;
    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "extra environment for the server")
    Map<String, String> env = new LinkedHashMap<>();
    @Option(names = "--accelerator", paramLabel = "KIND", description = "ascend or nvidia (default: what the host has; nvidia-smi without npu-smi is nvidia)")
    String accelerator;
    @Option(names = "--msprof-freq", paramLabel = "HZ", defaultValue = "50", description = "msprof --sys-hardware-mem-freq (default ${DEFAULT-VALUE})")
    int msprofHz;
    @Option(names = "--no-msprof", description = "do not wrap the server in msprof (the run will be incomplete)")
    boolean noMsprof;
    @Option(names = "--baseline-samples", paramLabel = "N", defaultValue = "3", description = "idle npu-smi samples (default ${DEFAULT-VALUE})")
    int baselineSamples;
    @Option(names = "--ready-samples", paramLabel = "N", defaultValue = "3", description = "samples once ready (default ${DEFAULT-VALUE})")
    int readySamples;
    @Option(names = "--after-samples", paramLabel = "N", defaultValue = "3", description = "samples after the load (default ${DEFAULT-VALUE})")
    int afterSamples;
    @Option(names = "--sample-interval", paramLabel = "SECONDS", defaultValue = "2", description = "between samples (default ${DEFAULT-VALUE})")
    double sampleInterval;
    @Option(names = "--load-interval", paramLabel = "SECONDS", defaultValue = "1", description = "between samples during the load (default ${DEFAULT-VALUE})")
    double loadInterval;
    @Option(names = "--api", paramLabel = "API", defaultValue = "completions", description = "completions or chat (default ${DEFAULT-VALUE})")
    String api;
    @Option(names = "--requests", paramLabel = "N", defaultValue = "16", description = "load requests (default ${DEFAULT-VALUE})")
    int requests;
    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "4", description = "requests in flight (default ${DEFAULT-VALUE})")
    int concurrency;
    @Option(names = "--input-tokens", paramLabel = "N", defaultValue = "1024", description = "prompt length, about one token per word (default ${DEFAULT-VALUE})")
    int inputTokens;
    @Option(names = "--output-tokens", paramLabel = "N", defaultValue = "128", description = "tokens generated per request (default ${DEFAULT-VALUE})")
    int outputTokens;
    @Option(names = "--stream-idle-timeout", paramLabel = "SECONDS", defaultValue = "60", description = "longest silence in a streamed answer (default ${DEFAULT-VALUE})")
    double idleTimeout;
    @Option(names = "--load-timeout", paramLabel = "SECONDS", defaultValue = "600", description = "wall-clock limit of the load (default ${DEFAULT-VALUE})")
    double loadTimeout;
    @Option(names = "--npu-smi-timeout", paramLabel = "SECONDS", defaultValue = "30", description = "default ${DEFAULT-VALUE}")
    double npuSmiTimeout;
    @Option(names = "--ready-timeout", paramLabel = "SECONDS", defaultValue = "1800", description = "default ${DEFAULT-VALUE}")
    double readyTimeout;
    @Option(names = "--export-timeout", paramLabel = "SECONDS", defaultValue = "600", description = "msprof --export limit (default ${DEFAULT-VALUE})")
    double exportTimeout;
    @Option(names = "--stop-timeout", paramLabel = "SECONDS", defaultValue = "30", description = "wait after SIGINT before SIGTERM (default ${DEFAULT-VALUE})")
    double stopTimeout;
    @Option(names = "--api-key-env", paramLabel = "VAR", description = "environment variable holding the server's API key (default: the command's --api-key)")
    String apiKeyEnv;
    @Option(names = "--host", paramLabel = "USER@HOST[:PORT]", description = "collect on another host over SSH; repeated: on every node of a multi-node deployment")
    List<String> sshTargets = new java.util.ArrayList<>();
    @Option(names = "--hostfile", paramLabel = "FILE", description = "the nodes of a multi-node deployment, one USER@HOST[:PORT] a line")
    Path hostfile;
    @Option(names = "--ray-head", paramLabel = "USER@HOST[:PORT]", description = "the head of a Ray cluster, over SSH: its alive"
            + " nodes (ray list nodes, else ray status -v) are the run's nodes; the head starts the server, the others only sample")
    String rayHead;
    @Option(names = "--head-only", description = "with several hosts: only the first starts the server, the others only sample"
            + " (vLLM data parallel with --headless workers you started; implied by --ray-head)")
    boolean headOnly;
    @Option(names = "--kube", paramLabel = "NAMESPACE/POD[:CONTAINER]", description = "collect in a Kubernetes pod through kubectl exec; repeatable")
    List<String> kube = new java.util.ArrayList<>();
    @Option(names = "--kube-selector", paramLabel = "NAMESPACE/SELECTOR", description = "every pod a label selector names, e.g. serving/app=vllm")
    String kubeSelector;
    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "kubeconfig for kubectl (default: kubectl's own, KUBECONFIG or ~/.kube/config)")
    String kubeconfig;
    @Option(names = "--kube-context", paramLabel = "CONTEXT", description = "kubectl context (default: the kubeconfig's current context)")
    String kubeContext;
    String sshTarget;
    @Option(names = "--identity", paramLabel = "FILE", description = "SSH private key (default ~/.ssh/id_ed25519)")
    Path identity;
    @Option(names = "--known-hosts", paramLabel = "FILE", description = "known_hosts to check the host key against (default ~/.ssh/known_hosts)")
    Path knownHosts;
    @Option(names = "--remote-state-dir", paramLabel = "DIR", description = "runtime directories on the remote host (default ~/.hbm-ledger/executions there)")
    String remoteStateDir;
    @Option(names = "--remote-env", paramLabel = "NAME=VALUE", description = "environment for every remote command, e.g. PATH=/usr/local/Ascend/...:/usr/bin:/bin")
    Map<String, String> remoteEnv = new LinkedHashMap<>();
    @Option(names = "--keep-remote", description = "with --host: keep the runtime directory on the remote host after its copy"
            + " (by default it is removed once the copy is verified: msprof output is GBs)")
    boolean keepRemote;
    @Option(names = "--copy-stall-timeout", paramLabel = "SECONDS", defaultValue = "120",
            description = "the runtime directory copy fails when no byte arrives for this long; its size does not matter (default ${DEFAULT-VALUE})")
    double copyStallTimeout;
    @Parameters(arity = "0..*", paramLabel = "COMMAND", description = "the serving command, after -- (standalone only)")
    List<String> command = List.of();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintStream log = System.err;
        List<String> targets;
        boolean recorded = false;
        try {
            targets = NodeTargets.sshTargets(sshTargets, hostfile);
            if (mode.resume != null && targets.isEmpty() && kube.isEmpty() && kubeSelector == null
                    && io.hbmledger.load.NodeRuns.isMultiNode(mode.resume)) {
                // a multi-node run keeps its hosts: resume needs only the run directory
                RecordedNodes.fill(this, mode.resume);
                targets = sshTargets;
                recorded = true;
            }
        } catch (ArgumentException e) {
            log.println("hbm-ledger collect: " + e.getMessage());
            return Main.EXIT_BAD_INPUT;
        }
        if (recorded || targets.size() > 1 || !kube.isEmpty() || kubeSelector != null || rayHead != null) {
            return new MultiNodeCollect(this, targets).call();
        }
        sshTarget = targets.isEmpty() ? null : targets.get(0);
        ExecutionStore store;
        try {
            store = ExecutionStore.resolve(stateDir, System.getenv());
            store.prepare();
            checkNumbers();
        } catch (CollectException e) {
            log.println("hbm-ledger collect: " + e.getMessage());
            return Main.EXIT_BAD_INPUT;
        }
        try (Host host = openHost()) {
            String runtimeRoot = runtimeRoot(host, store);
            Accelerator kind = accelerator != null ? Accelerator.parse(accelerator) : Accelerator.detect(host);
            Executions executions = new Executions(host, store, runtimeRoot, kind);
            Collector collector = new Collector(host, executions, settings(kind), log);
            AtomicBoolean finished = new AtomicBoolean();
            Thread hook = new Thread(() -> {
                if (!finished.get()) {
                    Collector.Interrupted left = collector.interrupt("SIGINT or SIGTERM");
                    log.println(interrupted(left));
                    log.flush();
                }
            }, "hbm-ledger-collect-interrupt");
            Runtime.getRuntime().addShutdownHook(hook);
            Collector.Outcome outcome;
            try {
                if (mode.resume != null) {
                    outcome = collector.resume(mode.resume, expectedExecution);
                } else if (mode.attach != null) {
                    outcome = collector.attach(runDir(), mode.attach);
                } else {
                    if (command.isEmpty()) {
                        throw new ArgumentException("no serving command; expected e.g. 'hbm-ledger collect --out runs/x -- vllm serve /models/NAME',"
                                + " or --attach EXECUTION_ID, or --resume RUN_DIR");
                    }
                    ExecutionSpec es = ExecutionSpec.fromCommand(command, port, ExecCommand.parseDevices(deviceList(kind, host)), env,
                            kind.profiles() && !noMsprof ? msprofHz : null, sshTarget == null ? Path.of("").toAbsolutePath().toString() : null);
                    outcome = collector.standalone(runDir(), es);
                }
            } finally {
                finished.set(true);
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or ran: it had the last word
                }
            }
            if (collector.journal() != null) {
                spec.commandLine().getOut().println(collector.journal().runDir().resolve("run.json"));
            }
            return outcome.exitCode;
        } catch (CollectException | IllegalArgumentException e) {
            log.println("hbm-ledger collect: " + e.getMessage());
            return Main.EXIT_BAD_INPUT;
        }
    }

    /**
     * What to tell the user after Ctrl-C / SIGTERM: the phase, what the run directory keeps, what
     * became of the execution, and the exact command that goes on from there (docs/readme-collect.md,
     * "Attach and resume").
     */
    String interrupted(Collector.Interrupted r) {
        StringBuilder b = new StringBuilder("hbm-ledger collect: interrupted during phase " + r.phase() + ".");
        if (r.runDir() == null) {
            return b.append(" Nothing was kept: no run directory was made.").toString();
        }
        int files = r.evidence().values().stream().mapToInt(Integer::intValue).sum();
        String kept = files == 0 ? "no evidence file yet" : files + (files == 1 ? " evidence file (" : " evidence files (")
                + r.evidence().entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining(", "))
                + ")";
        b.append(System.lineSeparator()).append("  kept: ").append(r.runDir().resolve("run.json"))
                .append(" (status failed, phase ").append(r.phase()).append(") with ").append(kept);
        List<String> resume = new java.util.ArrayList<>(List.of("hbm-ledger", "collect", "--resume", r.runDir().toString()));
        if (r.executionId() != null) {
            resume.addAll(List.of("--execution", r.executionId()));
        }
        if (stateDir != null) {
            resume.addAll(List.of("--state-dir", stateDir.toString()));
        }
        if (sshTarget != null) {
            resume.addAll(List.of("--host", sshTarget));
            if (identity != null) {
                resume.addAll(List.of("--identity", identity.toString()));
            }
            if (knownHosts != null) {
                resume.addAll(List.of("--known-hosts", knownHosts.toString()));
            }
            if (remoteStateDir != null) {
                resume.addAll(List.of("--remote-state-dir", remoteStateDir));
            }
            remoteEnv.forEach((k, v) -> resume.addAll(List.of("--remote-env", k + "=" + v)));
        }
        String resumeCommand = resume.stream().map(CollectCommand::shellWord).collect(java.util.stream.Collectors.joining(" "));
        String nl = System.lineSeparator() + "  ";
        if (r.executionId() == null) {
            // resume needs the execution's runtime directory: there is none before the start phase
            return b.append(nl).append("no server was started, so there is nothing to resume; run the same command again with a new --out")
                    .append(" (or remove ").append(r.runDir()).append(" first)").toString();
        }
        if (r.stoppedHere()) {
            b.append(nl).append("execution ").append(r.executionId()).append(", started by this run, was stopped: ").append(r.stopDetail());
        } else if ("attach".equals(r.mode())) {
            b.append(nl).append("execution ").append(r.executionId()).append(" is left running (attach never stops it)");
            b.append(nl).append("to continue, stop it: hbm-ledger exec stop ").append(r.executionId())
                    .append(stateDir != null ? " --state-dir " + shellWord(stateDir.toString()) : "");
            return b.append(nl).append("then: ").append(resumeCommand)
                    .append(nl).append("(resume exports msprof, copies the server log and saves the model files into the same run)").toString();
        }
        if (!r.stoppedHere()) {
            b.append(nl).append("execution ").append(r.executionId()).append(" had already stopped");
        }
        return b.append(nl).append("to continue: ").append(resumeCommand)
                .append(nl).append("(resume exports msprof, copies the server log and saves the model files into the same run;"
                        + " samples this run did not take stay missing, and run.json says so)").toString();
    }

    /** An argument as typed into a shell: as it is when nothing in it is special, else single-quoted. */
    static String shellWord(String arg) {
        return arg.matches("[A-Za-z0-9_./:=@,+%-]+") ? arg : io.hbmledger.collect.ShellQuote.quote(arg);
    }

    /** Counts and durations that cannot work (no request, a zero wait) are refused before anything runs. */
    void checkNumbers() {
        Map<String, Double> atLeastOne = new LinkedHashMap<>();
        atLeastOne.put("--msprof-freq", (double) msprofHz);
        atLeastOne.put("--requests", (double) requests);
        atLeastOne.put("--concurrency", (double) concurrency);
        atLeastOne.put("--input-tokens", (double) inputTokens);
        atLeastOne.put("--output-tokens", (double) outputTokens);
        atLeastOne.forEach((name, v) -> {
            if (v < 1) {
                throw new ArgumentException(name + " " + v.longValue() + ": expected a whole number >= 1");
            }
        });
        Map<String, Integer> atLeastZero = new LinkedHashMap<>();
        atLeastZero.put("--baseline-samples", baselineSamples);
        atLeastZero.put("--ready-samples", readySamples);
        atLeastZero.put("--after-samples", afterSamples);
        atLeastZero.forEach((name, v) -> {
            if (v < 0) {
                throw new ArgumentException(name + " " + v + ": expected a number of samples >= 0");
            }
        });
        Map<String, Double> positive = new LinkedHashMap<>();
        positive.put("--sample-interval", sampleInterval);
        positive.put("--load-interval", loadInterval);
        positive.put("--stream-idle-timeout", idleTimeout);
        positive.put("--load-timeout", loadTimeout);
        positive.put("--npu-smi-timeout", npuSmiTimeout);
        positive.put("--ready-timeout", readyTimeout);
        positive.put("--export-timeout", exportTimeout);
        positive.put("--stop-timeout", stopTimeout);
        positive.put("--copy-stall-timeout", copyStallTimeout);
        positive.forEach((name, v) -> {
            if (!(v > 0) || v.isInfinite()) {
                throw new ArgumentException(name + " " + v + ": expected a number of seconds > 0, e.g. " + name + " 2");
            }
        });
    }

    Path runDir() {
        if (out != null) {
            return out;
        }
        return Path.of("runs", "run-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    }

    private Host openHost() {
        if (sshTarget == null) {
            return new LocalHost();
        }
        Path home = Path.of(System.getProperty("user.home"));
        Path id = identity != null ? identity : home.resolve(".ssh/id_ed25519");
        Path kh = knownHosts != null ? knownHosts : home.resolve(".ssh/known_hosts");
        return SshHost.connect(sshTarget, id, kh, remoteEnv, Duration.ofSeconds(30), keepRemote);
    }

    private String runtimeRoot(Host host, ExecutionStore store) throws IOException {
        if (host instanceof LocalHost) {
            return store.root().toString();
        }
        if (remoteStateDir != null) {
            return remoteStateDir;
        }
        var r = host.run(List.of("printenv", "HOME"), Map.of(), Duration.ofSeconds(20));
        if (!r.ok() || r.stdoutText().isBlank()) {
            throw new CollectException("cannot find the home directory on " + host.name() + "; pass --remote-state-dir");
        }
        return r.stdoutText().strip() + "/.hbm-ledger/executions";
    }

    /** --devices as indices; on NVIDIA also from CUDA_VISIBLE_DEVICES in --env, with GPU UUIDs turned into indices. */
    private String deviceList(Accelerator kind, Host host) throws IOException {
        if (kind != Accelerator.NVIDIA) {
            return devices;
        }
        GpuDevices.checkOrder(env);
        String list = devices != null ? devices : env.get("CUDA_VISIBLE_DEVICES");
        if (list == null || list.isBlank()) {
            return null;
        }
        String table = null;
        if (GpuDevices.needsUuids(list)) {
            CommandResult r = new NvidiaSmi(host, ExecCommand.seconds(npuSmiTimeout)).indexAndUuid();
            if (!r.ok()) {
                throw new CollectException("nvidia-smi --query-gpu=index,uuid " + (r.timedOut() ? "did not answer" : "exited " + r.exitCode())
                        + " on " + host.name() + ": cannot turn the GPU UUIDs of " + list + " into indices; give indices in --devices");
            }
            table = r.stdoutText();
        }
        // the server gets the indices (and PCI_BUS_ID order) from collect, never the user's own list
        env.remove("CUDA_VISIBLE_DEVICES");
        return GpuDevices.toIndices(list, table);
    }

    CollectSettings settings(Accelerator kind) {
        String key = null;
        if (apiKeyEnv != null) {
            key = System.getenv(apiKeyEnv);
            if (key == null) {
                throw new ArgumentException("--api-key-env " + apiKeyEnv + ": that environment variable is not set");
            }
        } else {
            for (int i = 0; i + 1 < command.size(); i++) {
                if (command.get(i).equals("--api-key")) {
                    key = command.get(i + 1);
                }
            }
            for (String a : command) {
                if (a.startsWith("--api-key=")) {
                    key = a.substring("--api-key=".length());
                }
            }
        }
        if (!api.equals("completions") && !api.equals("chat")) {
            throw new ArgumentException("--api expects completions or chat, found '" + api + "'");
        }
        Duration stop = ExecCommand.seconds(stopTimeout);
        return new CollectSettings(baselineSamples, readySamples, afterSamples, ExecCommand.seconds(sampleInterval),
                ExecCommand.seconds(loadInterval), ExecCommand.seconds(npuSmiTimeout), ExecCommand.seconds(readyTimeout),
                ExecCommand.seconds(exportTimeout), ExecCommand.seconds(copyStallTimeout), noMsprof || !kind.profiles() ? null : msprofHz,
                new Executions.StopTimeouts(stop, stop.dividedBy(2).plusSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30)),
                new Workload.Spec(api, requests, concurrency, inputTokens, outputTokens, ExecCommand.seconds(idleTimeout),
                        ExecCommand.seconds(loadTimeout)),
                key);
    }
}

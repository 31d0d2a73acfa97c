package io.hbmledger.collect;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.evidence.npusmi.NpuSmiProcess;
import io.hbmledger.evidence.vllmlog.VllmLogReader;
import io.hbmledger.run.AtomicFile;
import io.hbmledger.run.FileProblem;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One collection run: standalone (start, measure, stop, export), attach (measure a running execution,
 * leave it running) or resume (after the user stopped it: export and add msprof data). Phases:
 * preflight, baseline, start, ready, load, after, stop, export, copy, static, done. run.json is
 * rewritten after each; a Ctrl-C at any point stops only what this run started.
 */
public final class Collector {

    /** How a collection ended; the CLI maps it to an exit code. */
    public enum Outcome {
        COMPLETE(0), INCOMPLETE(3), FAILED(1), REFUSED(2);

        public final int exitCode;

        Outcome(int exitCode) {
            this.exitCode = exitCode;
        }
    }

    private final Host host;
    private final Executions executions;
    private final NpuSmi npuSmi;
    private final CollectSettings s;
    private final PrintStream out;
    private final Map<String, Integer> sampleCounts = new HashMap<>();

    private RunJournal journal;
    private DeviceLocks locks;
    private Redactor redactor = new Redactor();
    private String apiKey;
    private volatile String phase = "preflight";
    private volatile ExecutionRecord ours;       // started by this run: stop it on the way out
    private volatile ExecutionRecord execution;  // the execution measured (ours or attached)
    private boolean interrupted;
    private volatile Workload load;              // the load running now, cancelled by an interrupt
    private boolean discarded;                   // a refused run: run.json removed

    public Collector(Host host, Executions executions, CollectSettings settings, PrintStream out) {
        this.host = host;
        this.executions = executions;
        this.npuSmi = new NpuSmi(host, settings.npuSmiTimeout());
        this.s = settings;
        this.out = out;
    }

    /** The run journal, once the run directory exists. */
    public RunJournal journal() {
        return discarded ? null : journal;
    }

    // ---------------------------------------------------------------- standalone

    /** Baseline, start under msprof, ready, load, after, stop, export, copy, static. */
    public Outcome standalone(Path runDir, ExecutionSpec spec) throws IOException {
        String runId = "run-" + runDir.getFileName();
        journal = RunJournal.create(runDir, runId, "standalone");
        redactor = Redactor.forArguments(spec.command());
        if (s.apiKey() != null) {
            redactor.addSecret(s.apiKey());
        }
        apiKey = s.apiKey() != null ? s.apiKey() : spec.apiKey();
        describe(spec);
        try {
            phase("preflight");
            preflight(spec.devices(), runId, true);
            if (s.msprofHz() != null && !host.hasCommand("msprof")) {
                throw refuse("msprof is not on PATH of " + host.name() + "; source the CANN set_env.sh, or pass --no-msprof"
                        + " to collect without msprof (the run will be incomplete)");
            }
            if (!host.portFree(spec.port())) {
                throw refuse("port " + spec.port() + " on " + host.name() + " is already in use; stop what listens there or pass --port");
            }
            journal.save();

            phase("baseline");
            journal.moment("baseline", RunJournal.now());
            samples("baseline", s.baselineSamples());

            phase("start");
            Map<String, String> env = new LinkedHashMap<>(spec.env());
            // vLLM V1 prints its memory split (weights, activation peak, KV cache, graphs) at DEBUG.
            env.putIfAbsent("VLLM_LOGGING_LEVEL", "DEBUG");
            ExecutionSpec withEnv = new ExecutionSpec(spec.command(), spec.port(), spec.model(), spec.tp(), spec.dp(),
                    spec.ep(), spec.devices(), env, s.msprofHz(), spec.workDir());
            if (s.msprofHz() == null) {
                journal.reason("collected without msprof (--no-msprof): no hardware-memory evidence");
            }
            startOurs(withEnv, runId);
            journal.moment("start", execution.started());
            journal.executionId(execution.id());
            journal.deploymentExtra("command_recorded", String.join(" ", execution.command()));
            journal.save();

            phase("ready");
            ServerClient client = new ServerClient(host.reach(spec.port()), apiKey);
            try {
                execution = executions.awaitReady(execution, client, s.readyTimeout(),
                        "pass the key with --api-key-env VAR, or keep --api-key in the command");
                ours = execution;
            } catch (CollectException e) {
                failedStart(e);
                return Outcome.FAILED;
            }
            readyAndLoad(client);

            phase("stop");
            stopOurs(s.stop());
            exportAndCopy(execution.msprofOutput() != null);
            staticFiles(spec.model(), spec.workDir());
            return finish();
        } catch (Refusal r) {
            return fail(r.getMessage(), Outcome.REFUSED);
        } catch (RuntimeException | IOException e) {
            // a file-system failure says why (permission denied, no space left), not only which file
            return fail(e instanceof IOException ioe ? FileProblem.describe(ioe) : e.getMessage(), Outcome.FAILED);
        } finally {
            cleanup();
        }
    }

    // ---------------------------------------------------------------- attach

    /** Ready, load and after samples from a running execution, which is left running. */
    public Outcome attach(Path runDir, String executionId) throws IOException {
        ExecutionRecord rec = executions.store().get(executionId);
        String runId = "run-" + runDir.getFileName();
        journal = RunJournal.create(runDir, runId, "attach");
        redactor = rec.redactor();
        if (s.apiKey() != null) {
            redactor.addSecret(s.apiKey());
        }
        execution = rec;
        journal.executionId(rec.id());
        describe(rec);
        try {
            phase("preflight");
            if (!executions.alive(rec)) {
                throw refuse("execution " + rec.id() + " is not running (state " + rec.state() + "); start it with"
                        + " 'hbm-ledger exec start' or use 'collect --resume' on a run that measured it");
            }
            preflight(rec.devices(), runId, false);
            ServerClient client = new ServerClient(host.reach(rec.port()), s.apiKey());
            String unauthorized = ServerClient.unauthorizedHint(client.status("/v1/models", Duration.ofSeconds(5)), "/v1/models",
                    "pass the key with --api-key-env VAR");
            if (unauthorized != null) {
                throw refuse("execution " + rec.id() + ": " + unauthorized);
            }
            if (!(client.answers("/health", Duration.ofSeconds(5)) && client.answers("/v1/models", Duration.ofSeconds(5)))) {
                throw refuse("execution " + rec.id() + " is alive but /health and /v1/models on port " + rec.port()
                        + " do not both answer 200 yet; wait until it is ready");
            }
            journal.reason("attached to a running execution: no idle baseline was taken by this run");
            journal.save();
            phase("ready");
            readyAndLoad(client);
            phase("copy");
            copyRuntime();
            if (rec.msprofOutput() != null) {
                journal.reason("msprof export pending: stop the execution ('hbm-ledger exec stop " + rec.id()
                        + "'), then run 'hbm-ledger collect --resume " + runDir + "'");
            } else {
                journal.reason("execution " + rec.id() + " runs without the msprof wrapper: no hardware-memory evidence");
            }
            staticFiles(rec.model(), null);
            return finish();
        } catch (Refusal r) {
            return fail(r.getMessage(), Outcome.REFUSED);
        } catch (RuntimeException | IOException e) {
            // a file-system failure says why (permission denied, no space left), not only which file
            return fail(e instanceof IOException ioe ? FileProblem.describe(ioe) : e.getMessage(), Outcome.FAILED);
        } finally {
            cleanup();
        }
    }

    // ---------------------------------------------------------------- resume

    /**
     * Continues a run whose execution has been stopped: exports msprof, copies the runtime directory,
     * keeps every earlier entry. Refuses another execution id, or an execution still running.
     */
    public Outcome resume(Path runDir, String expectedExecutionId) throws IOException {
        journal = RunJournal.load(runDir);
        String id = journal.manifest().executionId();
        if (id == null) {
            throw new CollectException(runDir + "/run.json names no execution_id; only runs made by collect can be resumed");
        }
        if (expectedExecutionId != null && !expectedExecutionId.equals(id)) {
            throw new CollectException("run " + runDir + " measured execution " + id + ", not " + expectedExecutionId
                    + "; a run only continues with the execution it started with");
        }
        ExecutionRecord rec = executions.store().get(id);
        if (!rec.host().equals(host.name())) {
            throw new CollectException("execution " + id + " ran on " + rec.host() + ", not on " + host.name()
                    + "; pass the same --host as the first collection");
        }
        execution = rec;
        redactor = rec.redactor();
        if (executions.alive(rec)) {
            throw new CollectException("execution " + id + " is still running; stop it first with 'hbm-ledger exec stop "
                    + id + "', then resume");
        }
        journal.mode("resume");
        journal.status("running");
        List<String> keep = new ArrayList<>();
        for (String r : journal.manifest().incompleteReasons()) {
            if (!redoneByResume(r)) {
                keep.add(r);
            }
        }
        journal.replaceReasons(keep);
        try {
            journal.moment("stop", rec.stopped() != null ? rec.stopped() : RunJournal.now());
            exportAndCopy(rec.msprofOutput() != null);
            boolean hasStatic = journal.manifest().evidence().stream().anyMatch(e -> "static".equals(e.moment()));
            if (!hasStatic && rec.model() != null) {
                staticFiles(rec.model(), null);
            }
            return finish();
        } catch (RuntimeException | IOException e) {
            // a file-system failure says why (permission denied, no space left), not only which file
            return fail(e instanceof IOException ioe ? FileProblem.describe(ioe) : e.getMessage(), Outcome.FAILED);
        } finally {
            cleanup();
        }
    }

    /** Reasons about steps that resume does again: export, copy, static files, and a stop that is now done. */
    static boolean redoneByResume(String reason) {
        return reason.startsWith("msprof export pending")
                || reason.startsWith("msprof --export ")
                || reason.startsWith("no msprof CSV after export")
                || reason.matches("interrupted \\(.*\\) during phase (stop|export|copy|static)")
                || reason.matches("(?s)failed in phase (stop|export|copy|static): .*");
    }

    // ---------------------------------------------------------------- interrupt

    /**
     * What an interrupt left behind, for the message that tells the user how to go on.
     *
     * @param phase the phase the run was in
     * @param runDir the run directory, null when none was made
     * @param mode standalone, attach or resume
     * @param executionId the execution measured, null when none was started yet
     * @param stoppedHere true when this run stopped the execution it had started
     * @param stopDetail how that stop went, null when nothing was stopped
     * @param evidence the evidence entries run.json keeps, by moment ("msprof" for exports)
     */
    public record Interrupted(String phase, Path runDir, String mode, String executionId, boolean stoppedHere,
                              String stopDetail, Map<String, Integer> evidence) {
    }

    /**
     * Called from the Ctrl-C / SIGTERM hook: records the phase reached, stops what this run started
     * (never an attached execution), and seals run.json.
     *
     * @return what is left, for the user's next step
     */
    public Interrupted interrupt(String why) {
        ExecutionRecord mine;
        String reached;
        synchronized (this) {
            interrupted = true;
            mine = ours;
            reached = phase;
        }
        String stopDetail = null;
        Workload running = load;
        if (running != null) {
            running.cancel();
        }
        try {
            if (journal != null) {
                journal.phase(reached);
                journal.status("failed");
                journal.reason("interrupted (" + why + ") during phase " + reached);
                journal.save();
            }
            if (mine != null && executions.alive(mine)) {
                Executions.StopTimeouts t = s.stop();
                Executions.StopReport r = executions.stop(mine,
                        new Executions.StopTimeouts(min(t.afterInt(), Duration.ofSeconds(10)), min(t.afterTerm(), Duration.ofSeconds(5)),
                                t.afterKill(), Duration.ZERO), null);
                stopDetail = r.detail();
                if (journal != null) {
                    journal.moment("stop", RunJournal.now());
                    journal.deploymentExtra("stop", Map.of("detail", r.detail()));
                }
            }
            if (journal != null) {
                journal.saveAndSeal();
            }
        } catch (IOException | RuntimeException e) {
            out.println("hbm-ledger: while stopping after an interrupt: " + e.getMessage());
        } finally {
            cleanup();
            try {
                host.close();   // ends npu-smi / msprof commands still running
            } catch (IOException | RuntimeException e) {
                out.println("hbm-ledger: while closing " + host.name() + ": " + e.getMessage());
            }
        }
        RunJournal j = journal();
        Map<String, Integer> kept = new LinkedHashMap<>();
        if (j != null) {
            for (io.hbmledger.run.RunManifest.EvidenceEntry e : j.manifest().evidence()) {
                kept.merge(e.moment() == null ? "msprof" : e.moment(), 1, Integer::sum);
            }
        }
        ExecutionRecord measured = execution;
        return new Interrupted(reached, j == null ? null : j.runDir(), j == null ? null : j.manifest().mode(),
                measured == null ? null : measured.id(), mine != null && stopDetail != null, stopDetail, kept);
    }

    // ---------------------------------------------------------------- phases

    private void preflight(List<Integer> devices, String runId, boolean mustBeIdle) throws IOException {
        if (!host.hasCommand("npu-smi")) {
            throw refuse("npu-smi is not on PATH of " + host.name() + "; install the Ascend driver tools or put npu-smi on PATH");
        }
        try {
            locks = DeviceLocks.acquire(executions.store().root(), host.name(), devices,
                    "collection " + runId + " (pid " + ProcessHandle.current().pid() + ", run directory " + journal.runDir() + ")");
        } catch (CollectException e) {
            throw refuse(e.getMessage());
        }
        if (!mustBeIdle) {
            return;
        }
        CommandResult r = npuSmi.info();
        if (!r.ok()) {
            throw refuse("npu-smi info " + (r.timedOut() ? "did not answer within " + npuSmi.timeout().toSeconds() + " s"
                    : "exited " + r.exitCode() + ": " + r.stderrText().strip()) + "; cannot check that the devices are idle");
        }
        List<String> busy = new ArrayList<>();
        for (NpuSmiProcess p : NpuSmiInfoParser.processes(r.stdoutText())) {
            if (devices.contains(p.device())) {
                busy.add("device " + p.device() + ": pid " + p.pid() + " " + p.name() + " (" + p.memoryMib() + " MB)");
            }
        }
        if (!busy.isEmpty()) {
            throw refuse("the chosen devices are not idle, so no clean baseline can be taken: " + String.join("; ", busy)
                    + ". Stop those processes or choose other --devices");
        }
    }

    private void startOurs(ExecutionSpec spec, String runId) throws IOException {
        synchronized (this) {
            if (interrupted) {
                throw new CollectException("interrupted before the server was started");
            }
            String id = executions.store().newId();
            ours = executions.start(spec, id, runId);
            execution = ours;
            host.guardGroup(ours.pgid());
        }
        out.println("started execution " + ours.id() + " (process group " + ours.pgid() + ") on " + host.name());
    }

    private void readyAndLoad(ServerClient client) throws IOException {
        journal.moment("ready", RunJournal.now());
        List<Long> pids = execution.serverPids() == null ? List.copyOf(executions.members(execution)) : execution.serverPids();
        journal.deployment(d -> d.withServerPids(pids));
        journal.save();
        samples("ready", s.readySamples());

        phase("load");
        String model = client.servedModel(Duration.ofSeconds(10));
        if (model == null) {
            model = execution.model();
        }
        LoadSampler sampler = new LoadSampler();
        journal.moment("load_start", RunJournal.now());
        Thread t = new Thread(sampler, "hbm-ledger-load-sampler");
        t.setDaemon(true);
        t.start();
        List<Workload.Result> results;
        try {
            Workload w = new Workload(client, s.workload());
            load = w;
            synchronized (this) {
                if (interrupted) {
                    w.cancel();
                }
            }
            results = w.run(model);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectException("interrupted during the load", e);
        } finally {
            sampler.stop();
            try {
                t.join(s.npuSmiTimeout().toMillis() + 5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        journal.moment("load_end", RunJournal.now());
        writeWorkload(results, model);
        // requests cut by an interrupt are the collector's doing, not the server's: not failures
        long failed = results.stream().filter(r -> !r.ok() && !r.cancelled()).count();
        boolean stopping;
        synchronized (this) {
            stopping = interrupted;
        }
        if (failed > 0 && !stopping) {
            journal.reason(failed + " of " + results.size() + " load requests failed (see workload.json)");
        }
        journal.save();

        phase("after");
        journal.moment("after", RunJournal.now());
        samples("after", s.afterSamples());
    }

    private void writeWorkload(List<Workload.Result> results, String model) throws IOException {
        ObjectNode w = Json.MAPPER.createObjectNode();
        w.put("schema", "hbm-ledger/workload/1");
        Workload.Spec ws = s.workload();
        ObjectNode spec = w.putObject("spec");
        spec.put("api", ws.api());
        spec.put("requests", ws.requests());
        spec.put("concurrency", ws.concurrency());
        spec.put("input_tokens", ws.inputTokens());
        spec.put("output_tokens", ws.outputTokens());
        spec.put("stream_idle_timeout_s", ws.idleTimeout().toMillis() / 1000.0);
        spec.put("deadline_s", ws.deadline().toMillis() / 1000.0);
        w.put("model", model);
        w.set("results", Json.MAPPER.valueToTree(results));
        AtomicFile.write(journal.runDir().resolve("workload.json"),
                redactor.text(Json.MAPPER.writeValueAsString(w)).getBytes(StandardCharsets.UTF_8));
        // Not in the evidence list: it says what load ran, not how much memory anything took.
        long ok = results.stream().filter(Workload.Result::ok).count();
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("file", "workload.json");
        summary.put("requests", results.size());
        summary.put("ok", ok);
        summary.put("cancelled", results.stream().filter(Workload.Result::cancelled).count());
        summary.put("input_tokens", ws.inputTokens());
        summary.put("output_tokens", ws.outputTokens());
        summary.put("concurrency", ws.concurrency());
        journal.extra("workload", summary);
    }

    private void stopOurs(Executions.StopTimeouts t) throws IOException {
        Executions.StopReport r = executions.stop(ours, t, npuSmi);
        journal.moment("stop", RunJournal.now());
        Map<String, Object> stop = new LinkedHashMap<>();
        stop.put("detail", r.detail());
        if (r.signal() != null) {
            stop.put("last_signal", r.signal());
        }
        journal.deploymentExtra("stop", stop);
        if (!r.stopped()) {
            journal.reason("execution " + ours.id() + " " + r.detail());
        } else if (Boolean.FALSE.equals(r.devicesReleased())) {
            journal.reason("devices not released after stop: " + r.detail());
        }
        execution = executions.store().get(ours.id());
        if (r.stopped()) {
            ours = null;
        }
        journal.save();
    }

    private void exportAndCopy(boolean withMsprof) throws IOException {
        if (withMsprof) {
            phase("export");
            String dir = execution.runtimeDir() + "/" + execution.msprofOutput();
            // msprof --export=on --output=<dir>: "Profiling数据导出" of the CANN profiling guide;
            // dir may be the PROF_XXX directory or its parent.
            CommandResult r = host.run(List.of("msprof", "--export=on", "--output=" + dir), Map.of(), s.exportTimeout());
            journal.moment("export", RunJournal.now());
            if (r.timedOut()) {
                journal.reason("msprof --export did not finish within " + s.exportTimeout().toSeconds()
                        + " s and was killed: msprof evidence missing");
            } else if (r.exitCode() != 0) {
                journal.reason("msprof --export exited " + r.exitCode() + ": " + redactor.text(lastLine(r.stderrText())));
            }
            journal.save();
        }
        phase("copy");
        copyRuntime();
        if (withMsprof) {
            List<String> csv = msprofExports();
            if (csv.stream().noneMatch(f -> f.endsWith(".csv"))) {
                journal.reason("no msprof CSV after export in " + execution.runtimeDir() + "/" + execution.msprofOutput());
            }
        }
        journal.save();
    }

    private void copyRuntime() throws IOException {
        Path target = journal.runDir().resolve("execution");
        Path tmp = journal.runDir().resolve(".execution.partial");
        deleteTree(tmp);
        host.fetchDirectory(execution.runtimeDir(), tmp, s.copyTimeout());
        // Secrets leave no trace in the run: text files holding one are rewritten with it masked.
        try (Stream<Path> walk = Files.walk(tmp)) {
            for (Path f : walk.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".log") || name.endsWith(".json") || name.endsWith(".txt")) {
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    if (redactor.hasSecret(text)) {
                        AtomicFile.write(f, redactor.text(text).getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (java.nio.charset.MalformedInputException ignored) {
            // binary file with a text-like name: left as produced
        }
        if (!Files.exists(tmp.resolve(ExecutionRecord.FILE))) {
            // a remote runtime directory has no record: it is kept in the local state directory
            AtomicFile.write(tmp.resolve(ExecutionRecord.FILE),
                    Json.MAPPER.writeValueAsBytes(executions.store().get(execution.id())));
        }
        deleteTree(target);
        Files.move(tmp, target);
        String taken = RunJournal.now();
        journal.moment("copy", taken);
        Path log = target.resolve(execution.log());
        if (Files.exists(log)) {
            journal.evidence("execution/" + execution.log(), "startup", taken,
                    "server log of execution " + execution.id() + " (stdout and stderr, all ranks), copied from " + execution.host(),
                    Map.of("execution_id", execution.id()));
            DebugLevelFigures.missing(VllmLogReader.parse(log)).ifPresent(journal::reason);
        } else {
            journal.reason("the execution's log " + execution.log() + " was not found in its runtime directory");
        }
        msprofExports();
        journal.save();
    }

    /** Adds every exported msprof CSV / SQLite file of the copied runtime directory to the evidence list. */
    private List<String> msprofExports() throws IOException {
        List<String> found = new ArrayList<>();
        if (execution.msprofOutput() == null) {
            return found;
        }
        Path dir = journal.runDir().resolve("execution").resolve(execution.msprofOutput());
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                String n = f.getFileName().toString();
                if (n.endsWith(".csv") || n.endsWith(".db")) {
                    String rel = journal.runDir().relativize(f).toString();
                    // no moment: an msprof hardware-memory export is a time series over the whole execution
                    journal.evidence(rel, null, null, "msprof export of execution " + execution.id()
                            + " (time series over the whole execution)");
                    found.add(rel);
                }
            }
        }
        return found;
    }

    private void staticFiles(String model, String workDir) throws IOException {
        phase("static");
        if (model == null) {
            journal.reason("no model path in the command: config.json and safetensors headers not saved");
            journal.save();
            return;
        }
        String dir = model;
        if (!dir.startsWith("/") && workDir != null) {
            dir = workDir + "/" + model;
        }
        List<String> saved = ModelFiles.save(host, dir, journal, redactor);
        if (saved.isEmpty()) {
            journal.reason("no config.json or *.safetensors in '" + redactor.text(model)
                    + "' on " + host.name() + " (a hub name, not a directory?): static evidence missing");
        } else {
            journal.deployment(d -> new io.hbmledger.run.RunManifest.Deployment(d.model(), "model", d.accelerator(), d.tp(),
                    d.dp(), d.pp(), d.ep(), d.devices(), d.kvCacheDtype(), d.gpuMemoryUtilization(), d.serverPids(), d.extra()));
        }
        journal.save();
    }

    private Outcome finish() throws IOException {
        phase("done");
        boolean complete = journal.reasonCount() == 0;
        journal.status(complete ? "complete" : "incomplete");
        journal.save();
        out.println("run " + journal.runDir() + ": " + (complete ? "complete" : "incomplete"));
        if (!complete) {
            journal.manifest().incompleteReasons().forEach(r -> out.println("  - " + r));
        }
        return complete ? Outcome.COMPLETE : Outcome.INCOMPLETE;
    }

    private Outcome fail(String message, Outcome outcome) throws IOException {
        String msg = redactor.text(message == null ? "unknown error" : message);
        out.println("hbm-ledger collect: " + msg);
        synchronized (this) {
            if (interrupted) {
                return Outcome.FAILED;
            }
        }
        if (outcome == Outcome.REFUSED && ours == null) {
            // nothing was taken or started: leave nothing that blocks a retry with the same --out
            journal.discard();
            discarded = true;
            out.println("hbm-ledger collect: refused; nothing was started and " + journal.runDir() + " holds no run");
            return outcome;
        }
        journal.status("failed");
        journal.reason("failed in phase " + phase + ": " + msg);
        journal.save();
        if (ours != null) {
            try {
                if (executions.alive(ours)) {
                    stopOurs(s.stop());
                }
            } catch (IOException | RuntimeException e) {
                out.println("hbm-ledger collect: could not stop execution " + ours.id() + ": " + e.getMessage()
                        + "; stop it with 'hbm-ledger exec stop " + ours.id() + "'");
            }
        }
        journal.save();
        return outcome;
    }

    private void failedStart(CollectException e) throws IOException {
        out.println("hbm-ledger collect: " + redactor.text(e.getMessage()));
        journal.status("failed");
        String log = "";
        try {
            log = executions.tail(execution, 20);
        } catch (IOException | RuntimeException unreadable) {
            // the reason then names the log without its lines
        }
        journal.reason("server failed to start: " + redactor.text(startFailure(e.getMessage(), log)));
        if (executions.alive(execution)) {
            stopOurs(s.stop());
        }
        ours = null;
        execution = executions.store().get(execution.id());
        copyRuntime();
        // a start that died holds the evidence of the failure; "oom" only when it says out of memory
        String saved = Files.exists(journal.runDir().resolve("execution").resolve(execution.log()))
                ? Files.readString(journal.runDir().resolve("execution").resolve(execution.log()), StandardCharsets.UTF_8) : log;
        journal.evidence("execution/" + execution.log(), OUT_OF_MEMORY.matcher(saved).find() ? "oom" : "startup",
                RunJournal.now(), "server log of execution " + execution.id() + ", which exited while starting");
        journal.save();
    }

    private void cleanup() {
        if (locks != null) {
            locks.close();
        }
    }

    private void describe(ExecutionSpec spec) {
        String model = spec.model() == null ? null : redactor.text(spec.model());
        // pp too: analyze counts TP x DP x PP ranks against the devices
        Integer pp = spec.pp() > 1 ? spec.pp() : null;
        journal.deployment(d -> new io.hbmledger.run.RunManifest.Deployment(model, d.modelDir(), "ascend", spec.tp(), spec.dp(),
                pp, spec.ep(), spec.devices(), d.kvCacheDtype(), d.gpuMemoryUtilization(), d.serverPids(), d.extra()));
        journal.deploymentExtra("port", spec.port());
        journal.deploymentExtra("host", host.name());
    }

    private void describe(ExecutionRecord rec) {
        int size = ExecutionSpec.pipelineSize(rec.command());
        Integer pp = size > 1 ? size : null;
        journal.deployment(d -> new io.hbmledger.run.RunManifest.Deployment(rec.model(), d.modelDir(), "ascend", rec.tp(), rec.dp(),
                pp, rec.ep(), rec.devices(), d.kvCacheDtype(), d.gpuMemoryUtilization(), d.serverPids(), d.extra()));
        journal.deploymentExtra("port", rec.port());
        journal.deploymentExtra("host", rec.host());
        journal.deploymentExtra("command_recorded", String.join(" ", rec.command()));
    }

    private void phase(String p) throws IOException {
        synchronized (this) {
            if (interrupted) {
                throw new CollectException("interrupted during phase " + phase);
            }
            phase = p;
            journal.phase(p);
        }
        journal.save();
    }

    private void samples(String moment, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                Executions.sleep(s.sampleInterval());
            }
            sample(moment);
        }
    }

    private boolean sample(String moment) throws IOException {
        int seq;
        synchronized (sampleCounts) {
            seq = sampleCounts.merge(moment, 1, Integer::sum);
        }
        String at = RunJournal.now();
        CommandResult r = npuSmi.info();
        if (r.timedOut()) {
            journal.reason("npu-smi did not answer within " + npuSmi.timeout().toSeconds() + " s (" + moment
                    + " sample " + seq + "): that sample is missing");
            journal.save();
            return false;
        }
        if (r.exitCode() != 0) {
            journal.reason("npu-smi exited " + r.exitCode() + " (" + moment + " sample " + seq + "): "
                    + lastLine(r.stderrText()));
            journal.save();
            return false;
        }
        String rel = String.format("npu-smi/%s-%03d.txt", moment, seq);
        AtomicFile.writeCreatingParents(journal.runDir().resolve(rel), r.stdout());
        journal.evidence(rel, moment, at, "npu-smi info");
        journal.save();
        return true;
    }

    /** Samples npu-smi every loadInterval while the load runs; at least once. */
    private final class LoadSampler implements Runnable {
        private volatile boolean stop;

        void stop() {
            stop = true;
        }

        @Override
        public void run() {
            try {
                do {
                    sample("load");
                    long until = System.nanoTime() + s.loadInterval().toNanos();
                    while (!stop && System.nanoTime() < until) {
                        Thread.sleep(20);
                    }
                } while (!stop);
            } catch (IOException | RuntimeException e) {
                journal.reason("load sampling stopped: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Refusal refuse(String message) {
        return new Refusal(message);
    }

    /** A precondition that does not hold: nothing was started. */
    private static final class Refusal extends CollectException {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }
    }

    private static String lastLine(String s) {
        String[] lines = s.strip().split("\\R");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }

    // torch_npu "NPU out of memory", torch "CUDA out of memory" / OutOfMemoryError, vLLM "No available
    // memory for the cache blocks" (vllm/v1/core/kv_cache_utils.py), CANN "207018"-style "out of memory" texts
    static final java.util.regex.Pattern OUT_OF_MEMORY = java.util.regex.Pattern.compile(
            "(?i)out of memory|OutOfMemoryError|No available memory for the cache blocks");

    /**
     * One line for run.json: the first line of the failure without its dangling "last lines of LOG:",
     * then the log's last lines that say why (error lines and tracebacks' last line), or its very last line.
     */
    static String startFailure(String message, String logTail) {
        String head = firstLine(message == null ? "" : message).strip();
        int cut = head.lastIndexOf("; last lines of ");
        String logName = cut >= 0 ? head.substring(cut + "; last lines of ".length()).replaceAll(":$", "") : null;
        if (cut >= 0) {
            head = head.substring(0, cut);
        }
        List<String> lines = logTail == null ? List.of() : logTail.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        // the exception lines themselves ("RuntimeError: ...") first; traceback frames also carry ERROR prefixes
        List<String> why = lines.stream().filter(l -> l.matches("(?i).*(\\w+(Error|Exception):|out of memory|No available memory).*")).toList();
        if (why.isEmpty()) {
            why = lines.stream().filter(l -> l.matches("(?i).*(error|exception|failed).*")).toList();
        }
        List<String> shown = why.isEmpty() ? (lines.isEmpty() ? List.of() : List.of(lines.get(lines.size() - 1)))
                : why.subList(Math.max(0, why.size() - 3), why.size());
        StringBuilder sb = new StringBuilder(head);
        if (!shown.isEmpty()) {
            sb.append("; the log says: ").append(String.join(" | ", shown));
        } else if (logName != null) {
            sb.append("; its log is empty");
        }
        if (logName != null) {
            sb.append(" (").append(logName).append(", copied to execution/").append(LOG_NAME).append(")");
        }
        return sb.toString();
    }

    private static final String LOG_NAME = Executions.LOG;

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) < 0 ? a : b;
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}

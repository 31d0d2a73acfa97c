package io.hbmledger.collect;

import io.hbmledger.run.RunManifest.Deployment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Standalone mode: baseline on idle devices, start the server under msprof, ready, load, after,
 * stop, export, copy, static. The server started here is stopped on every way out.
 */
final class StandaloneCollection {

    /** The phases a standalone run must have done to be complete (export only under msprof). */
    static List<String> plan(boolean msprof) {
        return msprof ? List.of("preflight", "baseline", "start", "ready", "load", "after", "stop", "export", "copy", "static")
                : List.of("preflight", "baseline", "start", "ready", "load", "after", "stop", "copy", "static");
    }

    private final Collection c;
    private final Sampler sampler;

    StandaloneCollection(Collection c) {
        this.c = c;
        this.sampler = new Sampler(c);
    }

    Collector.Outcome run(Path runDir, ExecutionSpec spec) throws IOException {
        String runId = RunJournal.newRunId(runDir);
        RunJournal journal = RunJournal.create(runDir, runId, "standalone");
        c.journal(journal);
        journal.plan(plan(c.settings.msprofHz() != null));
        Redactor redactor = Redactor.forArguments(spec.command());
        if (c.settings.apiKey() != null) {
            redactor.addSecret(c.settings.apiKey());
        }
        c.redactor(redactor);
        String apiKey = c.settings.apiKey() != null ? c.settings.apiKey() : spec.apiKey();
        describe(journal, spec);
        return c.ending.guarded(() -> phases(journal, spec, runId, apiKey));
    }

    private Collector.Outcome phases(RunJournal journal, ExecutionSpec spec, String runId, String apiKey) throws IOException {
        c.phase("preflight");
        new Preflight(c).check(spec.devices(), runId, true);
        if (c.settings.msprofHz() != null && !c.executions.accelerator().profiles()) {
            throw new Collection.Refusal("msprof profiles Ascend NPUs only; on " + c.host.name() + " (NVIDIA) pass --no-msprof or leave"
                    + " it to collect, which runs NVIDIA hosts without it");
        }
        if (c.settings.msprofHz() != null && !c.host.hasCommand("msprof")) {
            throw new Collection.Refusal("msprof is not on PATH of " + c.host.name() + "; source the CANN set_env.sh, or pass"
                    + " --no-msprof to collect without msprof (the run will be incomplete)");
        }
        if (!c.host.portFree(spec.port())) {
            throw new Collection.Refusal("port " + spec.port() + " on " + c.host.name()
                    + " is already in use; stop what listens there or pass --port");
        }
        c.done("preflight");

        c.phase("baseline");
        journal.moment("baseline", RunJournal.now());
        sampler.samples("baseline", c.settings.baselineSamples());
        c.done("baseline");

        c.phase("start");
        start(journal, spec, runId);
        c.done("start");

        c.phase("ready");
        ServerClient client = new ServerClient(c.host.reach(spec.port()), apiKey);
        try {
            c.measured.ready(c.executions.awaitReady(c.measured.record(), client, c.settings.readyTimeout(),
                    "pass the key with --api-key-env VAR, or keep --api-key in the command"));
        } catch (CollectException e) {
            return c.ending.failedStart(e);
        }
        new LoadPhases(c, sampler).run(client);

        c.phase("stop");
        c.measured.stop();
        c.done("stop");
        c.copy.exportAndCopy(c.measured.record().msprofOutput() != null);
        c.copy.staticFiles(spec.model(), spec.workDir());
        return c.ending.finish();
    }

    private void start(RunJournal journal, ExecutionSpec spec, String runId) throws IOException {
        Map<String, String> env = new LinkedHashMap<>(spec.env());
        // vLLM V1 prints its memory split (weights, activation peak, KV cache, graphs) at DEBUG.
        env.putIfAbsent("VLLM_LOGGING_LEVEL", "DEBUG");
        ExecutionSpec withEnv = new ExecutionSpec(spec.command(), spec.port(), spec.model(), spec.tp(), spec.dp(),
                spec.ep(), spec.devices(), env, c.settings.msprofHz(), spec.workDir());
        if (c.settings.msprofHz() == null && c.executions.accelerator().profiles()) {
            journal.reason("collected without msprof (--no-msprof): no hardware-memory evidence");
        }
        c.measured.start(withEnv, runId);
        ExecutionRecord execution = c.measured.record();
        journal.moment("start", execution.started());
        journal.executionId(execution.id());
        journal.deploymentExtra("command_recorded", String.join(" ", execution.command()));
        journal.save();
    }

    private void describe(RunJournal journal, ExecutionSpec spec) {
        String model = spec.model() == null ? null : c.redactor().text(spec.model());
        // pp too: analyze counts TP x DP x PP ranks against the devices
        Integer pp = spec.pp() > 1 ? spec.pp() : null;
        journal.deployment(d -> new Deployment(model, d.modelDir(), c.executions.accelerator().id(), spec.tp(), spec.dp(),
                pp, spec.ep(), spec.devices(), d.kvCacheDtype(), d.gpuMemoryUtilization(), d.serverPids(), d.extra()));
        journal.deploymentExtra("port", spec.port());
        journal.deploymentExtra("host", c.host.name());
    }
}

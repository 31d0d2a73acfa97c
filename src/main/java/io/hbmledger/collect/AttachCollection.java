package io.hbmledger.collect;

import io.hbmledger.run.RunManifest.Deployment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Attach mode: ready, load and after samples from an execution that is already running, then a
 * copy of its runtime directory. The execution is never stopped here; its msprof export waits for
 * {@link ResumeCollection} once the user stopped it.
 */
final class AttachCollection {

    /** The phases an attached run must have done to be complete; under msprof, stop and export come with resume. */
    static List<String> plan(boolean msprof) {
        return msprof ? List.of("preflight", "ready", "load", "after", "copy", "static", "stop", "export")
                : List.of("preflight", "ready", "load", "after", "copy", "static");
    }

    private final Collection c;

    AttachCollection(Collection c) {
        this.c = c;
    }

    Collector.Outcome run(Path runDir, String executionId) throws IOException {
        ExecutionRecord rec = c.executions.store().get(executionId);
        String runId = RunJournal.newRunId(runDir);
        RunJournal journal = RunJournal.create(runDir, runId, "attach");
        c.journal(journal);
        journal.plan(plan(rec.msprofOutput() != null));
        Redactor redactor = rec.redactor();
        if (c.settings.apiKey() != null) {
            redactor.addSecret(c.settings.apiKey());
        }
        c.redactor(redactor);
        c.measured.record(rec);
        journal.executionId(rec.id());
        describe(journal, rec);
        return c.ending.guarded(() -> phases(journal, rec, runDir, runId));
    }

    private Collector.Outcome phases(RunJournal journal, ExecutionRecord rec, Path runDir, String runId) throws IOException {
        c.phase("preflight");
        if (!c.executions.alive(rec)) {
            throw new Collection.Refusal("execution " + rec.id() + " is not running (state " + rec.state() + "); start it with"
                    + " 'hbm-ledger exec start' or use 'collect --resume' on a run that measured it");
        }
        new Preflight(c).check(rec.devices(), runId, false);
        ServerClient client = ready(rec);
        journal.reason("attached to a running execution: no idle baseline was taken by this run");
        c.done("preflight");
        c.phase("ready");
        new LoadPhases(c, new Sampler(c)).run(client);
        c.phase("copy");
        c.copy.copyRuntime();
        c.done("copy");
        if (rec.msprofOutput() != null) {
            journal.reason("msprof export pending: stop the execution ('hbm-ledger exec stop " + rec.id()
                    + "'), then run 'hbm-ledger collect --resume " + runDir + "'");
        } else if (c.executions.accelerator().profiles()) {
            journal.reason("execution " + rec.id() + " runs without the msprof wrapper: no hardware-memory evidence");
        }
        c.copy.staticFiles(rec.model(), null);
        return c.ending.finish();
    }

    /** A client of the server once /health and /v1/models both answer; a refusal with what to do otherwise. */
    private ServerClient ready(ExecutionRecord rec) throws IOException {
        ServerClient client = new ServerClient(c.host.reach(rec.port()), c.settings.apiKey());
        String unauthorized = ServerClient.unauthorizedHint(client.status("/v1/models", Duration.ofSeconds(5)), "/v1/models",
                "pass the key with --api-key-env VAR");
        if (unauthorized != null) {
            throw new Collection.Refusal("execution " + rec.id() + ": " + unauthorized);
        }
        if (!(client.answers("/health", Duration.ofSeconds(5)) && client.answers("/v1/models", Duration.ofSeconds(5)))) {
            throw new Collection.Refusal("execution " + rec.id() + " is alive but /health and /v1/models on port " + rec.port()
                    + " do not both answer 200 yet; wait until it is ready");
        }
        return client;
    }

    private void describe(RunJournal journal, ExecutionRecord rec) {
        int size = ExecutionSpec.pipelineSize(rec.command());
        Integer pp = size > 1 ? size : null;
        journal.deployment(d -> new Deployment(rec.model(), d.modelDir(), c.executions.accelerator().id(), rec.tp(), rec.dp(),
                pp, rec.ep(), rec.devices(), d.kvCacheDtype(), d.gpuMemoryUtilization(), d.serverPids(), d.extra()));
        journal.deploymentExtra("port", rec.port());
        journal.deploymentExtra("host", rec.host());
        journal.deploymentExtra("command_recorded", String.join(" ", rec.command()));
    }
}

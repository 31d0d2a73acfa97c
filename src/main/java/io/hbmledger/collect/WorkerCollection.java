package io.hbmledger.collect;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A worker node of a deployment whose server only the head node starts (vLLM on Ray, or vLLM's
 * multi-node data parallel with {@code --data-parallel-address} and {@code --headless} workers
 * the user started): this node only samples its own devices. It never starts, stops or signals
 * a server; it passes the head's phases (start, stop, export, static) at the same meeting points
 * so that its samples are taken at the same instants as the head's: baseline, ready, all through
 * the load (until the head reaches "after"), and after.
 */
final class WorkerCollection {

    /** What a worker must have done to be complete: its samples; the server's phases are the head's. */
    static List<String> plan(boolean baseline) {
        return baseline ? List.of("preflight", "baseline", "ready", "load", "after")
                : List.of("preflight", "ready", "load", "after");
    }

    private final Collection c;
    private final Sampler sampler;

    WorkerCollection(Collection c) {
        this.c = c;
        this.sampler = new Sampler(c);
    }

    /**
     * @param standalone the head starts the server in this run: take an idle baseline first and
     *     pass the head's start, stop and export points; false when the head attaches to a running one
     */
    Collector.Outcome run(Path runDir, String mode, boolean standalone) throws IOException {
        String runId = RunJournal.newRunId(runDir);
        RunJournal journal = RunJournal.create(runDir, runId, mode);
        c.journal(journal);
        journal.plan(plan(standalone));
        journal.deploymentExtra("host", c.host.name());
        return c.ending.guarded(() -> phases(journal, runId, standalone));
    }

    private Collector.Outcome phases(RunJournal journal, String runId, boolean standalone) throws IOException {
        c.phase("preflight");
        new Preflight(c).checkWorker(runId, standalone);
        c.done("preflight");
        if (standalone) {
            c.phase("baseline");
            journal.moment("baseline", RunJournal.now());
            sampler.samples("baseline", c.settings.baselineSamples());
            c.done("baseline");
            passing("start");
        }
        c.phase("ready");
        journal.moment("ready", RunJournal.now());
        sampler.samples("ready", c.settings.readySamples());
        c.done("ready");

        c.phase("load");
        sampleUntilTheHeadsLoadEnds(journal);
        c.done("load");
        journal.moment("after", RunJournal.now());
        sampler.samples("after", c.settings.afterSamples());
        c.done("after");

        if (standalone) {
            passing("stop");
            if (c.settings.msprofHz() != null && c.executions.accelerator().profiles()) {
                passing("export");
            }
        }
        passing("copy");
        passing("static");
        return c.ending.finish();
    }

    /** The load runs on the head: sample until the head arrives at "after" (the phase entered here waits for it). */
    private void sampleUntilTheHeadsLoadEnds(RunJournal journal) throws IOException {
        Sampler.WhileLoaded during = sampler.new WhileLoaded();
        journal.moment("load_start", RunJournal.now());
        Thread t = new Thread(during, "hbm-ledger-worker-load-sampler");
        t.setDaemon(true);
        t.start();
        try {
            c.phase("after");
        } finally {
            during.stop();
            try {
                t.join(c.settings.npuSmiTimeout().toMillis() + 5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            journal.moment("load_end", RunJournal.now());
            journal.save();
        }
    }

    /** A phase of the head's server: met at the same point, nothing done on this node. */
    private void passing(String phase) throws IOException {
        c.phase(phase);
        c.out.println("worker: phase " + phase + " is the head's; this node only samples");
    }
}

package io.hbmledger.collect;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * The execution a collection measures, apart from the run's own bookkeeping: the one it started
 * (stopped on the way out, whatever happens) or the one it attached to (never stopped), and the
 * load running against it (cancelled by an interrupt).
 */
final class MeasuredExecution {

    private final Collection c;
    private volatile ExecutionRecord ours;       // started by this run: stop it on the way out
    private volatile ExecutionRecord execution;  // the execution measured (ours or attached)
    private volatile Workload load;

    MeasuredExecution(Collection c) {
        this.c = c;
    }

    ExecutionRecord record() {
        return execution;
    }

    void record(ExecutionRecord rec) {
        execution = rec;
    }

    /** The execution this run started and has not stopped yet, or null. */
    ExecutionRecord ours() {
        return ours;
    }

    /** Takes the record of a server that answered ready; still ours to stop. */
    void ready(ExecutionRecord rec) {
        execution = rec;
        ours = rec;
    }

    /** Forgets ours (it exited by itself) and reads its record again. */
    void exited() throws IOException {
        ours = null;
        execution = c.executions.store().get(execution.id());
    }

    void load(Workload w) {
        load = w;
        if (c.interrupted()) {
            w.cancel();
        }
    }

    /** Starts the server under this run; refused once an interrupt came. */
    void start(ExecutionSpec spec, String runId) throws IOException {
        synchronized (c) {
            c.checkNotInterrupted("interrupted before the server was started");
            String id = c.executions.store().newId();
            ours = c.executions.start(spec, id, runId);
            execution = ours;
            c.host.guardGroup(ours.pgid());
        }
        c.out.println("started execution " + ours.id() + " (process group " + ours.pgid() + ") on " + c.host.name());
    }

    /** Stops ours, records how in run.json, and names what did not go as asked. */
    void stop() throws IOException {
        RunJournal journal = c.journal();
        Executions.StopReport r = c.executions.stop(ours, c.settings.stop(), c.smi);
        journal.moment("stop", RunJournal.now());
        journal.deploymentExtra("stop", r.journalEntry(r.detail()));
        if (!r.stopped()) {
            journal.reason("execution " + ours.id() + " " + r.detail());
        } else if (Boolean.FALSE.equals(r.devicesReleased())) {
            journal.reason("devices not released after stop: " + r.detail());
        }
        execution = c.executions.store().get(ours.id());
        if (r.stopped()) {
            ours = null;
        }
        journal.save();
    }

    /** Stops ours if it still runs, telling the user how to stop it by hand when that fails. */
    void stopIfAlive() {
        if (ours == null) {
            return;
        }
        try {
            if (c.executions.alive(ours)) {
                stop();
            }
        } catch (IOException | RuntimeException e) {
            c.out.println("hbm-ledger collect: could not stop execution " + ours.id() + ": " + e.getMessage()
                    + "; stop it with 'hbm-ledger exec stop " + ours.id() + "'");
        }
    }

    /**
     * After an interrupt: cancels the load and stops ours with short timeouts (the user is waiting).
     *
     * @return how the stop went, null when nothing of ours was running
     */
    String stopAfterInterrupt() throws IOException {
        Workload running = load;
        if (running != null) {
            running.cancel();
        }
        ExecutionRecord mine = ours;
        if (mine == null || !c.executions.alive(mine)) {
            return null;
        }
        Executions.StopTimeouts t = c.settings.stop();
        Executions.StopReport r = c.executions.stop(mine, new Executions.StopTimeouts(min(t.afterInt(), Duration.ofSeconds(10)),
                min(t.afterTerm(), Duration.ofSeconds(5)), t.afterKill(), Duration.ZERO), null);
        RunJournal journal = c.journal();
        if (journal != null) {
            journal.moment("stop", RunJournal.now());
            journal.deploymentExtra("stop", Map.of("detail", r.detail()));
        }
        return r.detail();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) < 0 ? a : b;
    }
}

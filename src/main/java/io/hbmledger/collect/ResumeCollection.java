package io.hbmledger.collect;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Resume mode: continues a run from its journal once its execution has stopped. Phases recorded
 * done are never redone; of those not done, stop, export, copy and static are done now (a copy again
 * after an export, so that it holds the CSV). Phases that measured the running server cannot be
 * taken again: each missing one becomes a reason, so the run ends incomplete (exit 3), never
 * complete with a phase missing. A complete run, or one with nothing left to redo, is left as it is.
 */
final class ResumeCollection {

    /** Phases that measure a running server: once it stopped they cannot be redone. */
    private static final Set<String> MEASURING = Set.of("preflight", "baseline", "start", "ready", "load", "after");

    private final Collection c;

    ResumeCollection(Collection c) {
        this.c = c;
    }

    Collector.Outcome run(Path runDir, String expectedExecutionId) throws IOException {
        RunJournal journal = RunJournal.load(runDir);
        if ("complete".equals(journal.manifest().status())) {
            c.journal(journal);
            c.out.println("run " + runDir + " is already complete: nothing to redo (resume never exports or copies twice)");
            return Collector.Outcome.COMPLETE;
        }
        // a run written before phases were recorded: its measuring phases are taken as done, as then
        boolean journaled = !journal.phasesPlanned().isEmpty();
        String id = journal.manifest().executionId();
        if (id == null) {
            if (!journaled) {
                throw new CollectException(runDir + "/run.json names no execution_id; only runs made by collect can be resumed");
            }
            c.journal(journal);
            if ("incomplete".equals(journal.manifest().status())) {
                c.out.println("run " + runDir + ": no server was started, nothing to resume; it stays incomplete");
                return Collector.Outcome.INCOMPLETE;
            }
            lockAgainstARunningCollector(journal.manifest().deployment().devices(), journal);
            try {
                endLeftovers(journal, -1);
                journal.reason("the collection stopped in phase " + journal.manifest().phase() + ", before a server was started:"
                        + " nothing to resume; collect again with a new --out");
                return c.ending.finish();
            } finally {
                c.releaseLocks();
            }
        }
        ExecutionRecord started = thisRunsExecution(runDir, id, expectedExecutionId);
        c.journal(journal);
        c.redactor(started.redactor());
        lockAgainstARunningCollector(started.devices(), journal);
        ExecutionRecord rec;
        try {
            endLeftovers(journal, started.pgid());
            rec = stopped(journal, started);
        } catch (IOException | RuntimeException e) {
            c.releaseLocks();
            throw e;
        }
        c.measured.record(rec);
        return c.ending.guarded(() -> redo(runDir, journal, rec));
    }

    /**
     * Ends what the run's dead collector left running on the host (over SSH, its samplers, exports
     * and guards when the connection's end never reached the host), sparing the server's group, and
     * says what it ended; run.json keeps the list under deployment.extra.resume_ended once the resume writes it.
     */
    private void endLeftovers(RunJournal journal, long serverPgid) throws IOException {
        String runId = journal.manifest().runId();
        List<String> ended = c.host.endLeftovers(runId, serverPgid);
        if (ended.isEmpty()) {
            return;
        }
        c.out.println("resume: ended on " + c.host.name() + " what the collector of " + runId + " left running"
                + (serverPgid > 0 ? " (not the server, process group " + serverPgid + ")" : "") + ":");
        ended.forEach(l -> c.out.println("  " + c.redactor().text(l)));
        // saved with what the resume goes on to write; a resume that then refuses writes nothing
        journal.deploymentExtra("resume_ended", ended.stream().map(c.redactor()::text).toList());
    }

    /**
     * The execution once it no longer runs. One this run started whose collector died (we hold its
     * devices' locks) is stopped here, gently (SIGINT first, so msprof keeps its data); one it
     * attached to is never stopped: the user stops it.
     */
    private ExecutionRecord stopped(RunJournal journal, ExecutionRecord rec) throws IOException {
        if (!c.executions.alive(rec)) {
            if (List.of("starting", "ready").contains(rec.state())) {
                // its guard ended it with the collector; the record still said it ran
                ExecutionRecord gone = rec.withState("stopped", RunJournal.now());
                c.executions.store().save(gone);
                return gone;
            }
            return rec;
        }
        if (!journal.manifest().runId().equals(rec.startedBy())) {
            throw new CollectException("execution " + rec.id() + " is still running; stop it first with 'hbm-ledger exec stop "
                    + rec.id() + "', then resume");
        }
        Executions.StopReport r = c.executions.stop(rec, c.settings.stop(), c.smi);
        c.out.println("resume: execution " + rec.id() + ", started by this run, was still running on " + c.host.name()
                + " after its collector died: " + r.detail());
        if (!r.stopped()) {
            throw new CollectException("execution " + rec.id() + " " + r.detail() + "; stop it with 'hbm-ledger exec stop "
                    + rec.id() + "', then resume");
        }
        // no signal when it ended by itself between the check above and the stop (Map.of threw on it)
        journal.deploymentExtra("stop", r.journalEntry("stopped by resume: " + r.detail()));
        if (Boolean.FALSE.equals(r.devicesReleased())) {
            journal.reason("devices not released after stop: " + r.detail());
        }
        journal.save();
        return c.executions.store().get(rec.id());
    }

    private Collector.Outcome redo(Path runDir, RunJournal journal, ExecutionRecord rec) throws IOException {
        boolean journaled = !journal.phasesPlanned().isEmpty();
        List<String> missing = journaled ? journal.phasesMissing() : List.of();
        List<String> measuring = missing.stream().filter(MEASURING::contains).toList();
        boolean export = rec.msprofOutput() != null && (!journaled || missing.contains("export"));
        boolean copyAgain = export || !journaled || missing.contains("copy");
        boolean staticAgain = rec.model() != null && (journaled ? missing.contains("static") : !hasStaticEvidence(journal));
        boolean ended = "incomplete".equals(journal.manifest().status());
        if (journaled && ended && !export && !copyAgain && !staticAgain && !missing.contains("stop")) {
            // measuring phases still missing were named by the resume that ended it
            c.out.println("run " + runDir + ": nothing left that resume can redo; it stays incomplete:");
            journal.manifest().incompleteReasons().forEach(r -> c.out.println("  - " + r));
            return Collector.Outcome.INCOMPLETE;
        }
        journal.mode("resume");
        journal.status("running");
        journal.replaceReasons(keptReasons(journal.manifest().incompleteReasons(), export, copyAgain, staticAgain));
        for (String p : measuring) {
            journal.reason("phase " + p + " was not finished before the collection stopped: what it measures cannot be taken"
                    + " again once the execution stopped; collect a new run for it");
        }
        journal.moment("stop", rec.stopped() != null ? rec.stopped() : RunJournal.now());
        c.done("stop");
        if (export || copyAgain) {
            c.copy.exportAndCopy(export);
        }
        if (staticAgain) {
            c.copy.staticFiles(rec.model(), null);
        }
        return c.ending.finish();
    }

    /** The execution the run measured; refuses another id or host. */
    private ExecutionRecord thisRunsExecution(Path runDir, String id, String expectedExecutionId) throws IOException {
        if (expectedExecutionId != null && !expectedExecutionId.equals(id)) {
            throw new CollectException("run " + runDir + " measured execution " + id + ", not " + expectedExecutionId
                    + "; a run only continues with the execution it started with");
        }
        ExecutionRecord rec = c.executions.store().get(id);
        if (!rec.host().equals(c.host.name())) {
            throw new CollectException("execution " + id + " ran on " + rec.host() + ", not on " + c.host.name()
                    + "; pass the same --host as the first collection");
        }
        return rec;
    }

    /** A collector still at work on this run holds its devices' locks: resuming under it would mix two writers. */
    private void lockAgainstARunningCollector(List<Integer> devices, RunJournal journal) throws IOException {
        try {
            c.lock(devices == null ? List.of() : devices, journal.manifest().runId());
        } catch (Collection.Refusal r) {
            throw new CollectException(r.getMessage() + "; a collector still works on this run: resume once it ended");
        }
    }

    private static boolean hasStaticEvidence(RunJournal journal) {
        return journal.manifest().evidence().stream().anyMatch(e -> "static".equals(e.moment()));
    }

    /** The reasons that stay true: those about a phase redone now are dropped (it says again if it fails again). */
    static List<String> keptReasons(List<String> reasons, boolean export, boolean copy, boolean statics) {
        List<String> redone = new ArrayList<>(List.of("stop"));
        if (export) {
            redone.add("export");
        }
        if (copy) {
            redone.add("copy");
        }
        if (statics) {
            redone.add("static");
        }
        String phases = String.join("|", redone);
        List<String> keep = new ArrayList<>();
        for (String r : reasons) {
            boolean gone = export && (r.startsWith("msprof export pending") || r.startsWith("msprof --export "))
                    || copy && r.startsWith("no msprof CSV after export")
                    || r.matches("interrupted \\(.*\\) during phase (" + phases + ")")
                    || r.matches("(?s)failed in phase (" + phases + "): .*");
            if (!gone) {
                keep.add(r);
            }
        }
        return keep;
    }
}

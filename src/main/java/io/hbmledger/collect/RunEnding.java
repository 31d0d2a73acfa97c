package io.hbmledger.collect;

import io.hbmledger.run.FileProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** How a collection ends in run.json and on the terminal: complete or incomplete, refused, failed, a server that died starting. */
final class RunEnding {

    private final Collection c;

    RunEnding(Collection c) {
        this.c = c;
    }

    /** The phases of one mode, from the first to {@link #finish}. */
    interface Phases {
        Collector.Outcome run() throws IOException;
    }

    /** Runs a mode's phases: an exception ends the run as {@link #failed}; the device locks are released on every way out. */
    Collector.Outcome guarded(Phases phases) throws IOException {
        try {
            return phases.run();
        } catch (RuntimeException | IOException e) {
            return failed(e);
        } finally {
            c.releaseLocks();
        }
    }

    /** Complete when no reason was recorded; prints the reasons otherwise. */
    Collector.Outcome finish() throws IOException {
        RunJournal journal = c.journal();
        c.phase("done");
        List<String> missing = journal.phasesMissing();
        if (journal.reasonCount() == 0 && !missing.isEmpty()) {
            // the journal has the last word: a run is never complete with a planned phase not done
            journal.reason("phases not done: " + String.join(", ", missing));
        }
        boolean complete = journal.reasonCount() == 0;
        journal.status(complete ? "complete" : "incomplete");
        journal.save();
        c.out.println("run " + journal.runDir() + ": " + (complete ? "complete" : "incomplete"));
        if (!complete) {
            journal.manifest().incompleteReasons().forEach(r -> c.out.println("  - " + r));
        }
        return complete ? Collector.Outcome.COMPLETE : Collector.Outcome.INCOMPLETE;
    }

    /** The outcome of an exception thrown by a phase: a refusal (nothing started) or a failure. */
    Collector.Outcome failed(Exception e) throws IOException {
        if (e instanceof Collection.Refusal || e instanceof PhaseGate.PeerRefused) {
            return fail(e.getMessage(), Collector.Outcome.REFUSED);
        }
        // a file-system failure says why (permission denied, no space left), not only which file
        return fail(e instanceof IOException ioe ? FileProblem.describe(ioe) : e.getMessage(), Collector.Outcome.FAILED);
    }

    private Collector.Outcome fail(String message, Collector.Outcome outcome) throws IOException {
        RunJournal journal = c.journal();
        String msg = c.redactor().text(message == null ? "unknown error" : message);
        c.out.println("hbm-ledger collect: " + msg);
        if (c.interrupted()) {
            return Collector.Outcome.FAILED;
        }
        if (outcome == Collector.Outcome.REFUSED && c.measured.ours() == null) {
            // nothing was taken or started: leave nothing that blocks a retry with the same --out
            c.discard();
            c.out.println("hbm-ledger collect: refused; nothing was started and " + journal.runDir() + " holds no run");
            return outcome;
        }
        journal.status("failed");
        journal.reason("failed in phase " + c.phaseReached() + ": " + msg);
        journal.save();
        c.measured.stopIfAlive();
        journal.save();
        return outcome;
    }

    /** A server that exited while starting: its log's last error lines in run.json, the log kept as evidence. */
    Collector.Outcome failedStart(CollectException e) throws IOException {
        RunJournal journal = c.journal();
        ExecutionRecord execution = c.measured.record();
        c.out.println("hbm-ledger collect: " + c.redactor().text(e.getMessage()));
        journal.status("failed");
        String log = "";
        try {
            log = c.executions.tail(execution, 20);
        } catch (IOException | RuntimeException unreadable) {
            // the reason then names the log without its lines
        }
        journal.reason("server failed to start: " + c.redactor().text(StartFailure.describe(e.getMessage(), log)));
        if (c.executions.alive(execution)) {
            c.measured.stop();
        }
        c.measured.exited();
        execution = c.measured.record();
        c.copy.copyRuntime();
        // a start that died holds the evidence of the failure; "oom" only when it says out of memory
        Path copied = journal.runDir().resolve("execution").resolve(execution.log());
        String saved = Files.exists(copied) ? Files.readString(copied, StandardCharsets.UTF_8) : log;
        journal.evidence("execution/" + execution.log(), StartFailure.OUT_OF_MEMORY.matcher(saved).find() ? "oom" : "startup",
                RunJournal.now(), "server log of execution " + execution.id() + ", which exited while starting");
        journal.save();
        return Collector.Outcome.FAILED;
    }
}

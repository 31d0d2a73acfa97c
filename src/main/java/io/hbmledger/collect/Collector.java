package io.hbmledger.collect;

import io.hbmledger.run.RunManifest.EvidenceEntry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One collection run, in one of three modes: {@link StandaloneCollection standalone} (start, measure,
 * stop, export), {@link AttachCollection attach} (measure a running execution, leave it running) or
 * {@link ResumeCollection resume} (after the execution stopped: redo the phases the journal does not
 * record done). Phases: preflight, baseline, start, ready, load, after, stop, export, copy, static,
 * done; run.json is rewritten after each, and a Ctrl-C at any point stops only what this run started.
 * One Collector runs one mode once.
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

    private final Collection c;

    public Collector(Host host, Executions executions, CollectSettings settings, PrintStream out) {
        this.c = new Collection(host, executions, settings, out);
    }

    /**
     * Makes this collection meet the collections of the other nodes of its deployment at every
     * phase and fixed sample (see {@link PhaseGate}); call before the mode runs.
     */
    public Collector meetingAt(PhaseGate gate) {
        c.gate(gate);
        return this;
    }

    /**
     * Names this collection's role among the nodes of its deployment ({@code head}: starts or attaches
     * to the server; {@code worker}: only samples), recorded in run.json as {@code role}.
     */
    public Collector inRole(String role) {
        c.role(role);
        return this;
    }

    /**
     * A worker node: samples only, at the head's meeting points (see {@link WorkerCollection}); never
     * starts or stops a server.
     *
     * @param mode the deployment's mode (standalone: the head starts the server, so an idle baseline
     *     comes first; attach: the server runs already)
     */
    public Outcome worker(Path runDir, String mode) throws IOException {
        return new WorkerCollection(c).run(runDir, mode, "standalone".equals(mode));
    }

    /** The run journal, once the run directory exists; null when a refused run removed it again. */
    public RunJournal journal() {
        return c.keptJournal();
    }

    /** Baseline, start under msprof, ready, load, after, stop, export, copy, static. */
    public Outcome standalone(Path runDir, ExecutionSpec spec) throws IOException {
        return new StandaloneCollection(c).run(runDir, spec);
    }

    /** Ready, load and after samples from a running execution, which is left running. */
    public Outcome attach(Path runDir, String executionId) throws IOException {
        return new AttachCollection(c).run(runDir, executionId);
    }

    /**
     * Continues a run whose execution has been stopped: redoes stop, export, copy and static where
     * run.json does not record them done, keeps every earlier entry, and ends incomplete (with a
     * reason each) when a measuring phase is missing. A complete run is left as it is.
     *
     * @throws CollectException (nothing written) for another execution id, another host, an execution
     *     still running, or a collector still at work on the run
     */
    public Outcome resume(Path runDir, String expectedExecutionId) throws IOException {
        return new ResumeCollection(c).run(runDir, expectedExecutionId);
    }

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
        String reached = c.interrupt();
        RunJournal journal = c.journal();
        String stopDetail = null;
        try {
            if (journal != null) {
                journal.phase(reached);
                journal.status("failed");
                journal.reason("interrupted (" + why + ") during phase " + reached);
                journal.save();
            }
            stopDetail = c.measured.stopAfterInterrupt();
            if (journal != null) {
                journal.saveAndSeal();
            }
        } catch (IOException | RuntimeException e) {
            c.out.println("hbm-ledger: while stopping after an interrupt: " + e.getMessage());
        } finally {
            c.releaseLocks();
            try {
                c.host.close();   // ends npu-smi / msprof commands still running
            } catch (IOException | RuntimeException e) {
                c.out.println("hbm-ledger: while closing " + c.host.name() + ": " + e.getMessage());
            }
        }
        RunJournal j = journal();
        Map<String, Integer> kept = new LinkedHashMap<>();
        if (j != null) {
            for (EvidenceEntry e : j.manifest().evidence()) {
                kept.merge(e.moment() == null ? "msprof" : e.moment(), 1, Integer::sum);
            }
        }
        ExecutionRecord measured = c.measured.record();
        return new Interrupted(reached, j == null ? null : j.runDir(), j == null ? null : j.manifest().mode(),
                measured == null ? null : measured.id(), stopDetail != null, stopDetail, kept);
    }
}

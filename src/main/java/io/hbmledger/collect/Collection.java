package io.hbmledger.collect;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

/**
 * What every collection mode shares: the host, the settings, the run journal, the phase reached and
 * whether an interrupt came. The execution measured is kept apart in {@link MeasuredExecution}.
 * Thread-safe where the load sampler and the Ctrl-C hook reach in: phase and interrupt state are
 * guarded by this object's lock.
 */
final class Collection {

    final Host host;
    final Executions executions;
    final CollectSettings settings;
    final PrintStream out;
    /** The device tool of the host's accelerator (npu-smi or nvidia-smi). */
    final DeviceSmi smi;
    final MeasuredExecution measured;
    /** The phases every mode ends with, and how a run ends. */
    final CopyPhases copy;
    final RunEnding ending;

    private volatile RunJournal journal;
    private volatile Redactor redactor = new Redactor();
    private volatile PhaseGate gate = PhaseGate.NONE;
    private volatile String role;
    private DeviceLocks locks;
    private String phase = "preflight";
    private boolean interrupted;
    private boolean discarded;

    Collection(Host host, Executions executions, CollectSettings settings, PrintStream out) {
        this.host = host;
        this.executions = executions;
        this.settings = settings;
        this.out = out;
        this.smi = executions.accelerator().smi(host, settings.npuSmiTimeout());
        this.measured = new MeasuredExecution(this);
        this.copy = new CopyPhases(this);
        this.ending = new RunEnding(this);
    }

    RunJournal journal() {
        return journal;
    }

    /** Takes the run's journal; from now on the host labels what it starts as this run's (see {@link Host#label}). */
    void journal(RunJournal j) {
        journal = j;
        host.label(j.manifest().runId());
        if (role != null) {
            j.extra("role", role);
        }
    }

    /** The node's role in a multi-node run (head, worker), written to run.json; null on one node. */
    void role(String r) {
        role = r;
    }

    /** The journal, or null when a refused run removed its run.json again. */
    synchronized RunJournal keptJournal() {
        return discarded ? null : journal;
    }

    Redactor redactor() {
        return redactor;
    }

    void redactor(Redactor r) {
        redactor = r;
    }

    /** Enters a phase and records it; refused once an interrupt came, so nothing new starts. */
    void phase(String p) throws IOException {
        synchronized (this) {
            checkNotInterrupted("interrupted during phase " + phase);
            phase = p;
            journal.phase(p);
        }
        journal.save();
        gate.arrive("phase:" + p);
    }

    /** The point where the nodes of one deployment meet (see {@link PhaseGate}); none for one node. */
    PhaseGate gate() {
        return gate;
    }

    void gate(PhaseGate g) {
        gate = g;
    }

    /** Records that a phase finished: resume never redoes it (see {@link RunJournal#done}). */
    void done(String p) throws IOException {
        journal.done(p);
        journal.save();
    }

    synchronized String phaseReached() {
        return phase;
    }

    synchronized boolean interrupted() {
        return interrupted;
    }

    synchronized void checkNotInterrupted(String message) {
        if (interrupted) {
            throw new CollectException(message);
        }
    }

    /** Marks the run interrupted and returns the phase it was in. */
    synchronized String interrupt() {
        interrupted = true;
        return phase;
    }

    /** Undoes the run directory of a run refused before it took anything. */
    synchronized void discard() throws IOException {
        journal.discard();
        discarded = true;
    }

    /** Takes the per-device locks of this host for these devices; a refusal when another collection holds one. */
    void lock(List<Integer> devices, String runId) throws IOException {
        try {
            locks = DeviceLocks.acquire(executions.store().root(), host.name(), devices,
                    "collection " + runId + " (pid " + ProcessHandle.current().pid() + ", run directory " + journal.runDir() + ")");
        } catch (CollectException e) {
            throw new Refusal(e.getMessage());
        }
    }

    void releaseLocks() {
        if (locks != null) {
            locks.close();
        }
    }

    /** A precondition that does not hold: nothing was started. */
    static final class Refusal extends CollectException {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }
    }
}

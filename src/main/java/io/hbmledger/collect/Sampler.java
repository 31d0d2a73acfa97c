package io.hbmledger.collect;

import io.hbmledger.run.AtomicFile;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Takes device-tool samples ({@code npu-smi info} into {@code npu-smi/MOMENT-NNN.txt}, nvidia-smi's
 * CSV queries into {@code nvidia-smi/MOMENT-NNN.csv}), exactly as the tool printed them, each named in run.json as soon as it is on disk. A sample that fails becomes an incomplete
 * reason, never a missing file named as evidence.
 */
final class Sampler {

    private final Collection c;
    private final Map<String, Integer> counts = new HashMap<>();

    Sampler(Collection c) {
        this.c = c;
    }

    /** n samples, sampleInterval apart. */
    void samples(String moment, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                Executions.sleep(c.settings.sampleInterval());
            }
            // the nodes of one deployment take each fixed sample together
            c.gate().arrive("sample:" + moment + ":" + (i + 1));
            sample(moment);
        }
    }

    /** One sample; false when the tool timed out or failed (said in run.json). */
    boolean sample(String moment) throws IOException {
        int seq;
        synchronized (counts) {
            seq = counts.merge(moment, 1, Integer::sum);
        }
        RunJournal journal = c.journal();
        String at = RunJournal.now();
        DeviceSmi smi = c.smi;
        CommandResult r = smi.sample();
        if (r.timedOut()) {
            journal.reason(smi.tool() + " did not answer within " + smi.timeout().toSeconds() + " s (" + moment
                    + " sample " + seq + "): that sample is missing");
            journal.save();
            return false;
        }
        if (r.exitCode() != 0) {
            journal.reason(smi.tool() + " exited " + r.exitCode() + " (" + moment + " sample " + seq + "): "
                    + StartFailure.lastLine(r.stderrText()));
            journal.save();
            return false;
        }
        String rel = smi.sampleFile(moment, seq);
        AtomicFile.writeCreatingParents(journal.runDir().resolve(rel), r.stdout());
        journal.evidence(rel, moment, at, smi.sampleCommand());
        journal.save();
        return true;
    }

    /** Samples the device tool every loadInterval while the load runs; at least once. */
    final class WhileLoaded implements Runnable {
        private volatile boolean stop;

        void stop() {
            stop = true;
        }

        @Override
        public void run() {
            try {
                do {
                    sample("load");
                    long until = System.nanoTime() + c.settings.loadInterval().toNanos();
                    while (!stop && System.nanoTime() < until) {
                        Thread.sleep(20);
                    }
                } while (!stop);
            } catch (IOException | RuntimeException e) {
                c.journal().reason("load sampling stopped: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

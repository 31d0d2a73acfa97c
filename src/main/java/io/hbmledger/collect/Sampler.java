package io.hbmledger.collect;

import io.hbmledger.run.AtomicFile;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Takes {@code npu-smi info} samples into {@code npu-smi/MOMENT-NNN.txt}, exactly as the tool printed
 * them, each named in run.json as soon as it is on disk. A sample that fails becomes an incomplete
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
            sample(moment);
        }
    }

    /** One sample; false when npu-smi timed out or failed (said in run.json). */
    boolean sample(String moment) throws IOException {
        int seq;
        synchronized (counts) {
            seq = counts.merge(moment, 1, Integer::sum);
        }
        RunJournal journal = c.journal();
        String at = RunJournal.now();
        CommandResult r = c.npuSmi.info();
        if (r.timedOut()) {
            journal.reason("npu-smi did not answer within " + c.npuSmi.timeout().toSeconds() + " s (" + moment
                    + " sample " + seq + "): that sample is missing");
            journal.save();
            return false;
        }
        if (r.exitCode() != 0) {
            journal.reason("npu-smi exited " + r.exitCode() + " (" + moment + " sample " + seq + "): "
                    + StartFailure.lastLine(r.stderrText()));
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

package io.hbmledger.collect;

import io.hbmledger.run.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The continuous sampler of the load on NVIDIA hosts: {@code nvidia-smi --query-gpu=timestamp,...
 * -lms N} runs in its own process group on the serving host for as long as the load runs, its
 * output in the runtime directory; afterwards it is stopped and its file taken into the run as
 * {@code nvidia-smi/load-continuous.csv}, moment load. Between the samples of {@link Sampler} it
 * sees short peaks that a sample every second would miss. It is bounded by {@code timeout} and
 * watched like the server, so a killed collector leaves no nvidia-smi looping behind.
 */
final class GpuLoopSampler {

    static final String FILE = "nvidia-smi/load-continuous.csv";
    private static final String REMOTE_NAME = "nvidia-smi-load.csv";

    private final Collection c;
    private final NvidiaSmi smi;
    private Long pgid;
    private String output;

    GpuLoopSampler(Collection c, NvidiaSmi smi) {
        this.c = c;
        this.smi = smi;
    }

    /** Starts the loop at {@code interval}; it ends by itself after {@code limit}. */
    void start(Duration interval, Duration limit) throws IOException {
        String dir = c.measured.record().runtimeDir();
        output = dir + "/" + REMOTE_NAME;
        List<String> argv = new java.util.ArrayList<>(List.of("timeout", Long.toString(limit.toSeconds() + 1)));
        argv.addAll(smi.loopCommand(interval));
        pgid = c.host.startGroup(argv, Map.of(), dir, output);
        c.host.guardGroup(pgid);
    }

    /** Stops the loop and keeps what it printed; a loop that printed nothing becomes a reason. */
    void stopAndKeep() throws IOException {
        if (pgid == null) {
            return;
        }
        c.host.signalGroup(pgid, "INT");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!c.host.groupMembers(pgid).isEmpty() && System.nanoTime() < deadline) {
            Executions.sleep(Duration.ofMillis(50));
        }
        if (!c.host.groupMembers(pgid).isEmpty()) {
            c.host.signalGroup(pgid, "KILL");
        }
        pgid = null;
        RunJournal journal = c.journal();
        byte[] raw = c.host.readText(output) == null ? new byte[0] : c.host.head(output, c.host.size(output));
        if (new String(raw, StandardCharsets.UTF_8).isBlank()) {
            journal.reason("the continuous nvidia-smi sampler of the load printed nothing (" + output + ")");
            return;
        }
        AtomicFile.writeCreatingParents(journal.runDir().resolve(FILE), raw);
        journal.evidence(FILE, "load", RunJournal.now(), String.join(" ", smi.loopCommand(c.settings.loadInterval()))
                + " while the load ran (one row per GPU and interval, nvidia-smi's timestamp first)");
    }
}

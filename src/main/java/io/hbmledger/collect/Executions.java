package io.hbmledger.collect;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Starts, waits for, and stops managed serving executions on one host, keeping their records in the
 * state directory. Every execution runs in its own process group so that the whole tree (API server,
 * engine core, workers, the msprof wrapper) is signalled together.
 */
public final class Executions {

    /** Log file name inside the runtime directory. */
    public static final String LOG = "server.log";
    /** msprof output directory inside the runtime directory. */
    public static final String MSPROF_DIR = "msprof";

    /**
     * Waits of the stop ladder: after SIGINT, after SIGTERM, after SIGKILL, and for npu-smi to stop
     * listing the group's processes.
     */
    public record StopTimeouts(Duration afterInt, Duration afterTerm, Duration afterKill, Duration release) {
        public static StopTimeouts defaults() {
            return new StopTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(15), Duration.ofSeconds(5),
                    Duration.ofSeconds(30));
        }
    }

    /**
     * How a stop went.
     *
     * @param signal           the last signal sent (INT, TERM, KILL), or null when the group was already gone
     * @param stopped          no process of the group is left
     * @param devicesReleased  npu-smi lists none of the group's pids; null when not checked
     * @param detail           what happened, for the user and run.json
     */
    public record StopReport(String signal, boolean stopped, Boolean devicesReleased, String detail) {

        /**
         * How run.json's deployment records this stop: {@code detail}, and the last signal sent
         * when one was (none when the execution had already ended before it was asked to stop).
         */
        public java.util.Map<String, Object> journalEntry(String detail) {
            java.util.Map<String, Object> entry = new java.util.LinkedHashMap<>();
            entry.put("detail", detail);
            if (signal != null) {
                entry.put("last_signal", signal);
            }
            return entry;
        }
    }

    private final Host host;
    private final ExecutionStore store;
    private final String runtimeRoot;
    private final Accelerator accelerator;

    /** Executions on an Ascend host. */
    public Executions(Host host, ExecutionStore store, String runtimeRoot) {
        this(host, store, runtimeRoot, Accelerator.ASCEND);
    }

    /**
     * @param runtimeRoot directory on the serving host under which each execution gets {@code <id>/};
     *                    for the local host this is the state directory itself
     * @param accelerator which variable names the devices a started server may use
     */
    public Executions(Host host, ExecutionStore store, String runtimeRoot, Accelerator accelerator) {
        this.host = host;
        this.store = store;
        this.runtimeRoot = runtimeRoot;
        this.accelerator = accelerator;
    }

    public Accelerator accelerator() {
        return accelerator;
    }

    public Host host() {
        return host;
    }

    public ExecutionStore store() {
        return store;
    }

    /** Starts the execution and records it (state "starting"). */
    public ExecutionRecord start(ExecutionSpec spec, String id, String startedBy) throws IOException {
        String runtimeDir = runtimeRoot + "/" + id;
        host.mkdirs(runtimeDir);
        List<String> argv = new ArrayList<>();
        String msprofOut = null;
        if (spec.msprofHz() != null) {
            msprofOut = MSPROF_DIR;
            host.mkdirs(runtimeDir + "/" + MSPROF_DIR);
            // msprof [options] <app>: the recommended form of the CANN profiling guide ("General
            // Profiling Command", atlasprofiling_16_0010); --sys-hardware-mem(-freq) from its system
            // profiling table (on/off; 1..1000 Hz, default 50).
            argv.add("msprof");
            argv.add("--output=" + runtimeDir + "/" + MSPROF_DIR);
            argv.add("--sys-hardware-mem=on");
            argv.add("--sys-hardware-mem-freq=" + spec.msprofHz());
        }
        argv.addAll(spec.effectiveCommand());
        Map<String, String> env = new LinkedHashMap<>(spec.env());
        env.putAll(accelerator.visibleDevices(spec.devices()));
        Redactor redactor = Redactor.forArguments(argv);
        byte[] saltBytes = new byte[16];
        new java.security.SecureRandom().nextBytes(saltBytes);
        String salt = java.util.HexFormat.of().formatHex(saltBytes);
        String workDir = spec.workDir() != null ? spec.workDir() : runtimeDir;
        long pgid = host.startGroup(argv, env, workDir, runtimeDir + "/" + LOG);
        ExecutionRecord rec = new ExecutionRecord(ExecutionRecord.SCHEMA, id, host.name(), runtimeDir,
                redactor.arguments(argv), pgid, pgid, spec.port(), spec.model() == null ? null : redactor.text(spec.model()),
                spec.tp(), spec.dp(), spec.ep(), spec.devices(), LOG, msprofOut, startedBy,
                RunJournal.now(), null, "starting", null, salt, redactor.hashes(salt), host.startTime(pgid));
        store.save(rec);
        return rec;
    }

    /** True while any process of the execution's group is alive. */
    public boolean alive(ExecutionRecord rec) throws IOException {
        return !members(rec).isEmpty();
    }

    /**
     * The live processes of the execution's group; empty when the group is gone, or when its id now
     * belongs to a later process (pid reused: the leader's start time differs from the record's).
     * Linux does not hand out a pid that is still some group's id, so while any member of ours
     * lives, the group id is still ours.
     */
    public Set<Long> members(ExecutionRecord rec) throws IOException {
        if (rec.leaderStart() != null) {
            String now = host.startTime(rec.pgid());
            if (now != null && !now.equals(rec.leaderStart())) {
                return Set.of();
            }
        }
        return host.groupMembers(rec.pgid());
    }

    /**
     * Waits until the group is alive and /health and /v1/models answer 200. Fails fast, with the last
     * log lines, when the group dies; fails with the same lines after {@code timeout} (wall clock).
     */
    public ExecutionRecord awaitReady(ExecutionRecord rec, ServerClient client, Duration timeout) throws IOException {
        return awaitReady(rec, client, timeout, "give the key to hbm-ledger (--api-key, or --api-key-env VAR)");
    }

    /**
     * As {@link #awaitReady(ExecutionRecord, ServerClient, Duration)}; a 401 or 403 from /v1/models
     * fails at once (waiting never helps), saying {@code howToGiveKey}.
     */
    public ExecutionRecord awaitReady(ExecutionRecord rec, ServerClient client, Duration timeout, String howToGiveKey)
            throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Duration probe = Duration.ofSeconds(2);
        while (true) {
            if (!alive(rec)) {
                ExecutionRecord failed = rec.withState("failed", RunJournal.now());
                store.save(failed);
                throw new CollectException("execution " + rec.id() + " exited while starting; last lines of "
                        + rec.runtimeDir() + "/" + LOG + ":\n" + tail(rec, 20));
            }
            int models = client.answers("/health", probe) ? client.status("/v1/models", probe) : 0;
            String unauthorized = ServerClient.unauthorizedHint(models, "/v1/models", howToGiveKey);
            if (unauthorized != null) {
                throw new CollectException("execution " + rec.id() + " is up but not usable: " + unauthorized);
            }
            if (models == 200) {
                Set<Long> pids = members(rec);
                ExecutionRecord ready = rec.withState("ready", null).withServerPids(List.copyOf(pids));
                store.save(ready);
                return ready;
            }
            if (System.nanoTime() > deadline) {
                throw new CollectException("execution " + rec.id() + " not ready after " + timeout.toSeconds()
                        + " s (/health and /v1/models on port " + rec.port() + " did not both answer 200); last lines of "
                        + rec.runtimeDir() + "/" + LOG + ":\n" + tail(rec, 20));
            }
            sleep(Duration.ofMillis(300));
        }
    }

    /**
     * Stops the group: SIGINT, then SIGTERM, then SIGKILL, each followed by a wait; then, when
     * {@code smi} is given, waits for the device tool to list none of the group's processes.
     */
    public StopReport stop(ExecutionRecord rec, StopTimeouts t, DeviceSmi smi) throws IOException {
        Set<Long> pids = new TreeSet<>(members(rec));
        if (rec.serverPids() != null) {
            pids.addAll(rec.serverPids());
        }
        String last = null;
        String[] signals = {"INT", "TERM", "KILL"};
        Duration[] waits = {t.afterInt(), t.afterTerm(), t.afterKill()};
        boolean gone = members(rec).isEmpty();
        for (int i = 0; i < signals.length && !gone; i++) {
            host.signalGroup(rec.pgid(), signals[i]);
            last = signals[i];
            gone = waitGone(rec, waits[i]);
        }
        StringBuilder detail = new StringBuilder();
        detail.append(last == null ? "already stopped" : gone ? "stopped after SIG" + last : "still alive after SIGKILL");
        Boolean released = null;
        if (gone && smi != null) {
            released = waitReleased(pids, smi, t.release(), detail);
        }
        store.save(rec.withState(gone ? "stopped" : "stop-failed", RunJournal.now()));
        return new StopReport(last, gone, released, detail.toString());
    }

    private Boolean waitReleased(Set<Long> pids, DeviceSmi smi, Duration timeout, StringBuilder detail) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            CommandResult r = smi.sample();
            if (r.ok()) {
                List<Long> held = smi.processes(r.stdoutText()).stream()
                        .map(DeviceSmi.Held::pid).filter(pids::contains).toList();
                if (held.isEmpty()) {
                    detail.append("; ").append(smi.tool()).append(" lists none of its processes");
                    return true;
                }
                if (System.nanoTime() > deadline) {
                    detail.append("; ").append(smi.tool()).append(" still lists pids ").append(held).append(" after ").append(timeout.toSeconds()).append(" s");
                    return false;
                }
            } else if (System.nanoTime() > deadline) {
                detail.append("; could not confirm device release: ").append(smi.tool()).append(" ")
                        .append(r.timedOut() ? "timed out" : "exited " + r.exitCode());
                return null;
            }
            sleep(Duration.ofMillis(500));
        }
    }

    private boolean waitGone(ExecutionRecord rec, Duration wait) throws IOException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            if (members(rec).isEmpty()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            sleep(Duration.ofMillis(100));
        }
    }

    /** The last {@code n} lines of the execution's log, secrets masked. */
    public String tail(ExecutionRecord rec, int n) throws IOException {
        CommandResult r = host.run(List.of("tail", "-n", Integer.toString(n), rec.runtimeDir() + "/" + rec.log()),
                Map.of(), Duration.ofSeconds(10));
        return rec.redactor().text(r.stdoutText());
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectException("interrupted", e);
        }
    }
}

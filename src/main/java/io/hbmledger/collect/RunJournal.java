package io.hbmledger.collect;

import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunFileException;
import io.hbmledger.run.RunManifest;
import io.hbmledger.run.RunManifest.Deployment;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import io.hbmledger.run.RunManifestWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The run.json of one collection ({@link RunManifest}, docs/run.schema.json), rewritten atomically
 * by {@link RunManifestWriter} after every phase so that a run stopped at any point still names
 * everything taken so far. Fields it does not know are kept as read. Thread-safe: the load sampler
 * and the Ctrl-C handler write too.
 */
public final class RunJournal {

    public static final String FILE = RunManifest.FILE_NAME;

    private final Path runDir;
    private final RunManifestWriter writer = new RunManifestWriter();
    private RunManifest m;
    private boolean sealed;

    private boolean createdDir;

    /**
     * Undoes {@link #create} for a run refused before it took anything: removes run.json, and the
     * directory when create made it and nothing else is in it, so that the same --out can be used again.
     * Later saves are ignored.
     */
    public synchronized void discard() throws IOException {
        sealed = true;
        Files.deleteIfExists(runDir.resolve(FILE));
        if (createdDir) {
            try (java.util.stream.Stream<Path> left = Files.list(runDir)) {
                if (left.findAny().isEmpty()) {
                    Files.delete(runDir);
                }
            }
        }
    }

    private RunJournal(Path runDir, RunManifest m) {
        this.runDir = runDir;
        this.m = m;
    }

    /** A new run directory with a first run.json (status running, phase preflight). */
    public static RunJournal create(Path runDir, String runId, String mode) throws IOException {
        if (Files.exists(runDir.resolve(FILE))) {
            throw new CollectException(runDir.resolve(FILE) + " already exists; choose a new --out directory or use --resume "
                    + runDir + " to continue that run");
        }
        boolean existed = Files.isDirectory(runDir);
        Files.createDirectories(runDir);
        String now = now();
        RunManifest m = RunManifest.of(Deployment.of(null, null, null, List.of()).withAccelerator("ascend"), List.of())
                .withIds(runId, null, mode)
                .withStatus("running", "preflight", List.of())
                .withTimes(now, now);
        RunJournal j = new RunJournal(runDir, m);
        j.createdDir = !existed;
        j.save();
        return j;
    }

    /** An existing run, read and checked by {@link RunDirectory#open} (paths stay inside the run). */
    public static RunJournal load(Path runDir) throws IOException {
        if (!Files.isRegularFile(runDir.resolve(FILE))) {
            throw new CollectException("no " + FILE + " in " + runDir + "; --resume expects a run directory written by"
                    + " 'hbm-ledger collect' (the --out of an earlier collection)");
        }
        try {
            return new RunJournal(runDir, RunDirectory.open(runDir).manifest());
        } catch (RunFileException e) {
            throw new CollectException(e.getMessage() + "; --resume expects a run directory written by hbm-ledger collect", e);
        }
    }

    public Path runDir() {
        return runDir;
    }

    /** Wall-clock now, ISO-8601 with offset, millisecond precision. */
    public static String now() {
        return OffsetDateTime.now(ZoneId.systemDefault()).truncatedTo(ChronoUnit.MILLIS).toString();
    }

    public synchronized RunManifest manifest() {
        return m;
    }

    public synchronized void executionId(String id) {
        m = m.withIds(m.runId(), id, m.mode());
    }

    public synchronized void mode(String mode) {
        m = m.withIds(m.runId(), m.executionId(), mode);
    }

    public synchronized void phase(String phase) {
        m = m.withStatus(m.status(), phase, m.incompleteReasons());
    }

    public synchronized void status(String status) {
        m = m.withStatus(status, m.phase(), m.incompleteReasons());
    }

    public synchronized void moment(String name, String at) {
        Map<String, String> mm = new LinkedHashMap<>(m.moments());
        mm.put(name, at);
        m = m.withMoments(mm);
    }

    public synchronized void deployment(UnaryOperator<Deployment> change) {
        m = m.withDeployment(change.apply(m.deployment()));
    }

    /** Sets a deployment field the schema leaves open (port, host, command_recorded, stop...). */
    public synchronized void deploymentExtra(String key, Object value) {
        Deployment d = m.deployment();
        Map<String, Object> extra = new LinkedHashMap<>(d.extra());
        extra.put(key, value);
        m = m.withDeployment(new Deployment(d.model(), d.modelDir(), d.accelerator(), d.tp(), d.dp(), d.pp(), d.ep(),
                d.devices(), d.kvCacheDtype(), d.gpuMemoryUtilization(), d.serverPids(), extra));
    }

    /** Sets a top-level field the schema leaves open (e.g. "workload"). */
    public synchronized void extra(String key, Object value) {
        Map<String, Object> extra = new LinkedHashMap<>(m.extra());
        extra.put(key, value);
        m = new RunManifest(m.schema(), m.runId(), m.executionId(), m.mode(), m.status(), m.phase(), m.incompleteReasons(),
                m.source(), m.created(), m.updated(), m.deployment(), m.moments(), m.evidence(), extra);
    }

    public synchronized void reason(String reason) {
        if (!m.incompleteReasons().contains(reason)) {
            List<String> r = new ArrayList<>(m.incompleteReasons());
            r.add(reason);
            m = m.withStatus(m.status(), m.phase(), r);
        }
    }

    public synchronized void replaceReasons(List<String> reasons) {
        m = m.withStatus(m.status(), m.phase(), reasons);
    }

    public synchronized int reasonCount() {
        return m.incompleteReasons().size();
    }

    /** Adds (or replaces, by file) one evidence entry; {@code moment}, {@code takenAt} and {@code note} may be null. */
    public synchronized void evidence(String file, String moment, String takenAt, String note, Map<String, Object> extra) {
        List<EvidenceEntry> all = new ArrayList<>();
        for (EvidenceEntry e : m.evidence()) {
            if (!e.file().equals(file)) {
                all.add(e);
            }
        }
        all.add(new EvidenceEntry(file, moment, takenAt, null, note, extra));
        m = m.withEvidence(all);
    }

    public void evidence(String file, String moment, String takenAt, String note) {
        evidence(file, moment, takenAt, note, null);
    }

    /** Writes run.json atomically (no-op once sealed). */
    public synchronized void save() throws IOException {
        if (sealed) {
            return;
        }
        m = m.withTimes(m.created() == null ? now() : m.created(), now());
        writer.write(runDir, m);
    }

    /** Writes a last time and refuses later writes: the interrupt handler's word is final. */
    public synchronized void saveAndSeal() throws IOException {
        save();
        sealed = true;
    }
}

package io.hbmledger.collect;

import io.hbmledger.run.FileProblem;
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

    /** The directories {@link #create} made, the run directory last: a refusal removes them again. */
    private List<Path> createdDirs = List.of();

    /**
     * Undoes {@link #create} for a run refused before it took anything: removes run.json, and the
     * directories create made (the run directory and any missing parents) when nothing else is in
     * them, so that the same --out can be used again. Later saves are ignored.
     */
    public synchronized void discard() throws IOException {
        sealed = true;
        Files.deleteIfExists(runDir.resolve(FILE));
        removeEmpty(createdDirs);
    }

    private RunJournal(Path runDir, RunManifest m) {
        this.runDir = runDir;
        this.m = m;
    }

    /**
     * The id of a new run in {@code runDir}: its folder's name and 8 random hex digits. The id labels
     * the run's processes on every host (resume ends what a dead collector left running by it) and
     * owns its device locks, so two runs in folders of the same name (./run on two checkouts, two
     * users' run/) must not share one: a resume of one killed the other's msprof and samplers.
     */
    public static String newRunId(Path runDir) {
        return "run-" + runDir.getFileName() + "-" + java.util.HexFormat.of().toHexDigits(RANDOM.nextInt());
    }

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /**
     * A new run directory with a first run.json (status running, phase preflight).
     *
     * @param runDir a directory that does not exist yet (it is made, with missing parents) or an
     *     existing empty one (the --out of collect)
     * @throws ArgumentException when runDir cannot be a new run directory: the message names the
     *     path, what was expected, what was found and what to do; nothing is left behind
     */
    public static RunJournal create(Path runDir, String runId, String mode) throws IOException {
        checkNewRunDir(runDir);
        List<Path> made;
        try {
            made = createDirectories(runDir);
        } catch (IOException e) {
            throw new ArgumentException("--out " + runDir + ": cannot create the run directory: "
                    + FileProblem.cannotWrite(e instanceof java.nio.file.FileSystemException f && f.getFile() != null
                            ? Path.of(f.getFile()) : runDir, e)
                    + "; nothing was created. Choose a new directory on a file system you may write to, e.g. --out runs/NAME", e);
        }
        String now = now();
        RunManifest m = RunManifest.of(Deployment.of(null, null, null, List.of()).withAccelerator("ascend"), List.of())
                .withIds(runId, null, mode)
                .withStatus("running", "preflight", List.of())
                .withTimes(now, now);
        RunJournal j = new RunJournal(runDir, m);
        j.createdDirs = made;
        try {
            j.save();
        } catch (IOException e) {
            removeEmpty(made);
            throw new ArgumentException("--out " + runDir + ": " + FileProblem.cannotWrite(runDir.resolve(FILE), e)
                    + "; nothing was created. Choose a directory you may write to, e.g. --out runs/NAME", e);
        }
        return j;
    }

    /**
     * Refuses an --out that cannot become this run's own directory: a file, a directory already
     * holding a run or other files (this run's npu-smi/, execution/ and model/ would mix with them),
     * or a path through a file.
     */
    private static void checkNewRunDir(Path runDir) {
        String expected = "--out " + runDir + ": expected a new run directory (or an existing empty one)";
        if (Files.exists(runDir.resolve(FILE))) {
            throw new ArgumentException(expected + ", found a run: " + runDir.resolve(FILE) + " already exists; choose a new --out"
                    + " directory, or use 'hbm-ledger collect --resume " + runDir + "' to continue that run");
        }
        if (Files.exists(runDir) || Files.isSymbolicLink(runDir)) {
            if (!Files.isDirectory(runDir)) {
                throw new ArgumentException(expected + ", found " + FileProblem.found(runDir)
                        + "; choose another --out (collect makes the directory), e.g. --out runs/NAME");
            }
            List<String> inside;
            try (java.util.stream.Stream<Path> list = Files.list(runDir)) {
                inside = list.map(p -> p.getFileName().toString()).sorted().limit(4).toList();
            } catch (IOException e) {
                throw new ArgumentException(expected + "; cannot list it: " + FileProblem.reason(e)
                        + ". Choose a directory you may read and write, e.g. --out runs/NAME", e);
            }
            if (!inside.isEmpty()) {
                throw new ArgumentException(expected + ", found a directory holding " + String.join(", ", inside)
                        + (inside.size() == 4 ? ", ..." : "") + "; choose a new --out (e.g. runs/NAME) or empty that directory,"
                        + " so that this run's files are not mixed with others");
            }
            return;
        }
        for (Path up = runDir.toAbsolutePath().getParent(); up != null; up = up.getParent()) {
            if (Files.exists(up) || Files.isSymbolicLink(up)) {
                if (!Files.isDirectory(up)) {
                    throw new ArgumentException(expected + ", but " + up + " on its way is " + FileProblem.found(up)
                            + ", not a directory; choose another --out, e.g. --out runs/NAME");
                }
                return;
            }
        }
    }

    /** Files.createDirectories, returning the directories it made (top first) and removing them again on failure. */
    private static List<Path> createDirectories(Path dir) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = dir.toAbsolutePath(); p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.add(0, p);
        }
        List<Path> made = new ArrayList<>();
        try {
            for (Path p : missing) {
                Files.createDirectory(p);
                made.add(p);
            }
        } catch (IOException e) {
            removeEmpty(made);
            throw e;
        }
        return List.copyOf(made);
    }

    /** Removes these directories, the last first, each only while it is empty. */
    private static void removeEmpty(List<Path> dirs) {
        for (int i = dirs.size() - 1; i >= 0; i--) {
            try {
                Files.deleteIfExists(dirs.get(i));
            } catch (IOException notEmptyOrGone) {
                return;  // something else is in it now: keep it and its parents
            }
        }
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

    /** Top-level run.json field: the phases this run must have done to be complete, in order. */
    static final String PLANNED = "phases_planned";
    /** Top-level run.json field: the phases done, in the order they finished; it only grows. */
    static final String DONE = "phases_done";

    /** Records the phases this run's mode must finish before it can be complete. */
    public synchronized void plan(List<String> phases) {
        extra(PLANNED, List.copyOf(phases));
    }

    /**
     * Records that a phase finished, its files on disk and named: the journal only moves forward,
     * so a phase once done is never taken back and resume never redoes it.
     */
    public synchronized void done(String phase) {
        List<String> done = new ArrayList<>(phasesDone());
        if (!done.contains(phase)) {
            done.add(phase);
            extra(DONE, List.copyOf(done));
        }
    }

    /** The phases done so far, in order; empty for a run written before phases were recorded. */
    public synchronized List<String> phasesDone() {
        return strings(m.extra().get(DONE));
    }

    /** The phases planned, or empty for a run written before phases were recorded (or by hand). */
    public synchronized List<String> phasesPlanned() {
        return strings(m.extra().get(PLANNED));
    }

    /** The planned phases not done yet, in plan order. */
    public synchronized List<String> phasesMissing() {
        List<String> done = phasesDone();
        return phasesPlanned().stream().filter(p -> !done.contains(p)).toList();
    }

    private static List<String> strings(Object value) {
        if (!(value instanceof List<?> list)) {
            return List.of();
        }
        return list.stream().filter(String.class::isInstance).map(String.class::cast).toList();
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

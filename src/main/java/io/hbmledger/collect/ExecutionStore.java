package io.hbmledger.collect;

import io.hbmledger.run.AtomicFile;
import io.hbmledger.run.FileProblem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The state directory: one sub-directory per execution id holding {@value ExecutionRecord#FILE}
 * (written atomically) and, for local executions, the runtime files. Default
 * {@code ~/.hbm-ledger/executions}, overridden by {@code --state-dir} or {@code HBM_LEDGER_STATE}.
 */
public final class ExecutionStore {

    private static final SecureRandom RANDOM = new SecureRandom();
    private final Path root;
    /** Where the path came from, for messages: --state-dir, HBM_LEDGER_STATE or the default. */
    private final String origin;

    public ExecutionStore(Path root) {
        this(root, "the state directory");
    }

    private ExecutionStore(Path root, String origin) {
        this.root = root.toAbsolutePath().normalize();
        this.origin = origin;
    }

    /** The state directory chosen by option, then environment, then the default under the home directory. */
    public static ExecutionStore resolve(Path option, Map<String, String> env) {
        if (option != null) {
            return new ExecutionStore(option, "--state-dir");
        }
        String fromEnv = env.get("HBM_LEDGER_STATE");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new ExecutionStore(Path.of(fromEnv), "HBM_LEDGER_STATE");
        }
        return new ExecutionStore(Path.of(System.getProperty("user.home"), ".hbm-ledger", "executions"),
                "the default state directory");
    }

    public Path root() {
        return root;
    }

    /**
     * Refuses a state directory that exists but is not a directory: every verb would otherwise fail
     * later with a bare "Not a directory" or list nothing.
     *
     * @throws ArgumentException naming the path, where it came from and what to do
     */
    public ExecutionStore requireDirectory() {
        if ((Files.exists(root) || Files.isSymbolicLink(root)) && !Files.isDirectory(root)) {
            throw new ArgumentException(origin + " " + root + ": expected the directory of execution records, found "
                    + FileProblem.found(root) + "; pass --state-dir DIR naming a directory (or one that does not exist yet)"
                    + ("HBM_LEDGER_STATE".equals(origin) ? ", or unset HBM_LEDGER_STATE" : ""));
        }
        return this;
    }

    /**
     * Makes the state directory ready for new records before anything starts: creates it when missing.
     *
     * @throws ArgumentException when it is not a directory or cannot be created or written
     */
    public void prepare() {
        requireDirectory();
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new ArgumentException(origin + " " + root + ": " + FileProblem.cannotWrite(root, e)
                    + "; pass --state-dir DIR naming a directory you may write to", e);
        }
        if (!Files.isWritable(root)) {
            throw new ArgumentException(origin + " " + root + ": this user may not write to it; pass --state-dir DIR"
                    + " naming a directory you may write to");
        }
    }

    /** A new, unused execution id: exec-YYYYMMDD-HHMMSS-xxxx. */
    public String newId() {
        byte[] b = new byte[2];
        RANDOM.nextBytes(b);
        return "exec-" + ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
                + HexFormat.of().formatHex(b);
    }

    public Path dir(String id) {
        if (!id.matches("[A-Za-z0-9._-]+") || id.startsWith(".")) {
            throw new IllegalArgumentException("not an execution id: '" + id + "' (expected letters, digits, '.', '_' or '-')");
        }
        return root.resolve(id);
    }

    public void save(ExecutionRecord rec) throws IOException {
        AtomicFile.writeCreatingParents(dir(rec.id()).resolve(ExecutionRecord.FILE), Json.MAPPER.writeValueAsBytes(rec));
    }

    public Optional<ExecutionRecord> find(String id) throws IOException {
        Path f = dir(id).resolve(ExecutionRecord.FILE);
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        return Optional.of(read(f));
    }

    /** One execution.json; a damaged one is named with what to do instead of Jackson's text. */
    private static ExecutionRecord read(Path f) throws IOException {
        try {
            return Json.MAPPER.readValue(f.toFile(), ExecutionRecord.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
            throw new CollectException(f + (at == null || at.getLineNr() < 1 ? "" : ":" + at.getLineNr())
                    + ": not a readable execution record (" + ExecutionRecord.SCHEMA + "): " + e.getOriginalMessage().lines().findFirst().orElse("")
                    + "; it was not written by this version of hbm-ledger, or was cut short. Move that execution's directory out of "
                    + f.getParent().getParent() + " (its server, if still running, must then be stopped by hand)", e);
        }
    }

    /** The record, or an exception naming the state directory and how to list what is there. */
    public ExecutionRecord get(String id) throws IOException {
        return find(id).orElseThrow(() -> new CollectException("no execution '" + id + "' in " + root
                + "; 'hbm-ledger exec list' shows the known ones (or pass --state-dir / HBM_LEDGER_STATE)"));
    }

    public List<ExecutionRecord> list() throws IOException {
        List<ExecutionRecord> out = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : dirs.sorted().toList()) {
                Path f = d.resolve(ExecutionRecord.FILE);
                if (Files.isRegularFile(f)) {
                    out.add(read(f));
                }
            }
        }
        return out;
    }
}

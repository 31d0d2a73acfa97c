package io.hbmledger.collect;

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

    public ExecutionStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** The state directory chosen by option, then environment, then the default under the home directory. */
    public static ExecutionStore resolve(Path option, Map<String, String> env) {
        if (option != null) {
            return new ExecutionStore(option);
        }
        String fromEnv = env.get("HBM_LEDGER_STATE");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new ExecutionStore(Path.of(fromEnv));
        }
        return new ExecutionStore(Path.of(System.getProperty("user.home"), ".hbm-ledger", "executions"));
    }

    public Path root() {
        return root;
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
        AtomicFiles.write(dir(rec.id()).resolve(ExecutionRecord.FILE), Json.MAPPER.writeValueAsBytes(rec));
    }

    public Optional<ExecutionRecord> find(String id) throws IOException {
        Path f = dir(id).resolve(ExecutionRecord.FILE);
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        return Optional.of(Json.MAPPER.readValue(f.toFile(), ExecutionRecord.class));
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
                    out.add(Json.MAPPER.readValue(f.toFile(), ExecutionRecord.class));
                }
            }
        }
        return out;
    }
}

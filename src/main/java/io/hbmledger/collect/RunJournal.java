package io.hbmledger.collect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;

/**
 * The run.json of one collection (docs/run.schema.json, "hbm-ledger/run/1"), rewritten atomically
 * after every phase so that a run stopped at any point still names everything taken so far. Fields
 * it does not know are kept as read. Thread-safe: the load sampler and the Ctrl-C handler write too.
 */
public final class RunJournal {

    public static final String FILE = "run.json";
    public static final String SCHEMA = "hbm-ledger/run/1";

    private final Path runDir;
    private final ObjectNode root;
    private boolean sealed;

    private RunJournal(Path runDir, ObjectNode root) {
        this.runDir = runDir;
        this.root = root;
    }

    public static RunJournal create(Path runDir, String runId, String mode) throws IOException {
        if (Files.exists(runDir.resolve(FILE))) {
            throw new CollectException(runDir.resolve(FILE) + " already exists; choose a new --out directory or use --resume "
                    + runDir + " to continue that run");
        }
        Files.createDirectories(runDir);
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("run_id", runId);
        root.put("mode", mode);
        root.put("status", "running");
        root.put("phase", "preflight");
        root.putArray("incomplete_reasons");
        root.put("created", now());
        root.putObject("deployment").put("accelerator", "ascend");
        root.putObject("moments");
        root.putArray("evidence");
        RunJournal j = new RunJournal(runDir, root);
        j.save();
        return j;
    }

    public static RunJournal load(Path runDir) throws IOException {
        Path f = runDir.resolve(FILE);
        if (!Files.isRegularFile(f)) {
            throw new CollectException("no " + FILE + " in " + runDir + "; --resume expects a run directory written by hbm-ledger collect");
        }
        JsonNode n = Json.MAPPER.readTree(f.toFile());
        if (!(n instanceof ObjectNode o) || !SCHEMA.equals(n.path("schema").asText())) {
            throw new CollectException(f + ": expected a JSON object with \"schema\": \"" + SCHEMA + "\"");
        }
        for (String arr : new String[] {"incomplete_reasons", "evidence"}) {
            if (!o.path(arr).isArray()) {
                o.putArray(arr);
            }
        }
        if (!o.path("moments").isObject()) {
            o.putObject("moments");
        }
        if (!o.path("deployment").isObject()) {
            o.putObject("deployment");
        }
        return new RunJournal(runDir, o);
    }

    public Path runDir() {
        return runDir;
    }

    /** Wall-clock now, ISO-8601 with offset, millisecond precision. */
    public static String now() {
        return OffsetDateTime.now(ZoneId.systemDefault()).truncatedTo(ChronoUnit.MILLIS).toString();
    }

    public synchronized String text(String field) {
        JsonNode n = root.get(field);
        return n == null || n.isNull() ? null : n.asText();
    }

    public synchronized void set(String field, String value) {
        root.put(field, value);
    }

    public synchronized void phase(String phase) {
        root.put("phase", phase);
    }

    public synchronized void status(String status) {
        root.put("status", status);
    }

    public synchronized void moment(String name, String at) {
        ((ObjectNode) root.get("moments")).put(name, at);
    }

    public synchronized ObjectNode deployment() {
        return (ObjectNode) root.get("deployment");
    }

    public synchronized void reason(String reason) {
        ArrayNode a = (ArrayNode) root.get("incomplete_reasons");
        for (JsonNode r : a) {
            if (r.asText().equals(reason)) {
                return;
            }
        }
        a.add(reason);
    }

    /** Replaces the reasons list (resume drops "export pending" once it exports). */
    public synchronized void replaceReasons(java.util.List<String> reasons) {
        ArrayNode a = root.putArray("incomplete_reasons");
        reasons.forEach(a::add);
    }

    public synchronized int reasonCount() {
        return root.get("incomplete_reasons").size();
    }

    /** Adds (or replaces, by file) one evidence entry; {@code moment} and {@code note} may be null. */
    public synchronized ObjectNode evidence(String file, String moment, String takenAt, String note) {
        ArrayNode a = (ArrayNode) root.get("evidence");
        for (int i = 0; i < a.size(); i++) {
            if (file.equals(a.get(i).path("file").asText())) {
                a.remove(i);
                break;
            }
        }
        ObjectNode e = a.addObject();
        e.put("file", file);
        if (moment != null) {
            e.put("moment", moment);
        }
        if (takenAt != null) {
            e.put("taken_at", takenAt);
        }
        if (note != null) {
            e.put("note", note);
        }
        return e;
    }

    public synchronized JsonNode snapshot() {
        return root.deepCopy();
    }

    /** Writes run.json atomically (no-op once sealed). */
    public synchronized void save() throws IOException {
        if (sealed) {
            return;
        }
        root.put("updated", now());
        AtomicFiles.write(runDir.resolve(FILE), Json.MAPPER.writeValueAsBytes(root));
    }

    /** Writes a last time and refuses later writes: the interrupt handler's word is final. */
    public synchronized void saveAndSeal() throws IOException {
        save();
        sealed = true;
    }
}

package io.hbmledger.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import java.io.CharConversionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A run directory opened for reading: its manifest, checked, and the evidence paths resolved
 * inside it.
 *
 * <p>Every evidence path must stay inside the run directory: absolute paths, {@code ..} that
 * climbs out, and symbolic links (of the file or any folder on its way) that point outside are
 * refused with a {@link RunFileException} naming run.json and the line of the entry. A run
 * directory is meant to be copied, archived and attached to an issue whole; a path outside it
 * would silently read another machine's or another run's files.
 *
 * @param dir the run directory, as the user named it
 * @param manifest the checked manifest
 */
public record RunDirectory(Path dir, RunManifest manifest) {

    /**
     * Opens {@code path}: a run directory, or its {@code run.json} itself.
     *
     * @throws RunFileException when the directory or run.json is missing, unreadable as JSON,
     *     of another schema, or names evidence outside the directory; the message names the file
     *     and line
     * @throws IOException when the file system fails
     */
    public static RunDirectory open(Path path) throws IOException, RunFileException {
        Path dir = Files.isRegularFile(path) && path.getFileName().toString().equals(RunManifest.FILE_NAME)
                ? parentOf(path) : path;
        Path manifestPath = dir.resolve(RunManifest.FILE_NAME);
        String shown = manifestPath.toString();
        if (!Files.isDirectory(dir)) {
            throw new RunFileException(dir.toString(), 0, "expected a run directory holding "
                    + RunManifest.FILE_NAME + ", found " + (Files.exists(dir) ? "a file" : "nothing")
                    + "; give a run directory, or evidence files with --moment/--tp/--devices");
        }
        if (!Files.isRegularFile(manifestPath)) {
            throw new RunFileException(shown, 0, "no " + RunManifest.FILE_NAME
                    + " in the run directory; write one (see docs/run.schema.json) or pass the evidence files directly");
        }
        byte[] bytes = Files.readAllBytes(manifestPath);
        RunJson json = new RunJson();
        RunManifest m;
        try {
            m = json.parse(bytes);
        } catch (JsonProcessingException e) {
            throw RunJsonError.of(shown, bytes, e);
        } catch (CharConversionException e) {
            // Jackson guesses UTF-16/32 from NUL bytes at the start and fails on what follows;
            // found by RunJsonFuzzTest
            throw new RunFileException(shown, 1, "expected UTF-8 JSON text, found bytes that are not text in any"
                    + " Unicode encoding (" + e.getMessage().replaceAll("\\s+", " ")
                    + "); rewrite run.json as UTF-8 (see docs/run.schema.json)");
        }
        if (m == null) {
            throw new RunFileException(shown, 1, "expected a JSON object, found null");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        check(dir, shown, text, m, json);
        return new RunDirectory(dir, m);
    }

    /**
     * The 1-based line of run.json where evidence[index] names its file (0 when it cannot be
     * told), for messages about that file.
     */
    public int evidenceLine(int index) {
        try {
            String text = Files.readString(dir.resolve(RunManifest.FILE_NAME), StandardCharsets.UTF_8);
            RunJson json = new RunJson();
            int from = Math.max(text.indexOf("\"evidence\""), 0);
            int line = 0;
            for (int i = 0; i <= index && i < manifest.evidence().size(); i++) {
                String q = json.quoted(manifest.evidence().get(i).file());
                line = lineOf(text, q, from);
                from = Math.max(from, indexAfter(text, q, from));
            }
            return line;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The evidence file's path on disk (already checked to be inside the directory). */
    public Path resolve(EvidenceEntry e) {
        return dir.resolve(e.file());
    }

    /**
     * The checkpoint run.json names ({@code deployment.model_dir}: a model directory or a saved
     * weights manifest), already checked to be inside the run directory; null when not named.
     */
    public Path modelDir() {
        String m = manifest.deployment() == null ? null : manifest.deployment().modelDir();
        return m == null || m.isBlank() ? null : dir.resolve(m);
    }

    /** {@link #modelDir()} as shown to the user in messages: the run directory joined with it. */
    public String modelDirShown() {
        Path p = modelDir();
        return p == null ? null : p.normalize().toString();
    }

    /**
     * {@link #modelDir()} as the ledger cites it: relative to the run directory, as run.json
     * writes it, so that the same run directory gives the same ledger wherever it is copied.
     */
    public String modelDirCited() {
        Path p = modelDir();
        return p == null ? null : cite(p);
    }

    /**
     * A path as the ledger cites it: relative to the run directory when it lies inside it
     * (the way evidence sources are cited), else as given.
     */
    public String cite(Path p) {
        Path base = dir.toAbsolutePath().normalize();
        Path abs = p.toAbsolutePath().normalize();
        if (!abs.startsWith(base) || abs.equals(base)) {
            return abs.equals(base) ? "." : p.normalize().toString();
        }
        return base.relativize(abs).toString().replace('\\', '/');
    }

    /** The evidence file's path as shown to the user: the run directory joined with the entry. */
    public String display(EvidenceEntry e) {
        return dir.resolve(e.file()).normalize().toString();
    }

    private static Path parentOf(Path file) {
        Path p = file.toAbsolutePath().getParent();
        return p == null ? Path.of(".") : p;
    }

    private static void check(Path dir, String shown, String text, RunManifest m, RunJson json)
            throws IOException, RunFileException {
        if (!RunManifest.SCHEMA.equals(m.schema())) {
            throw new RunFileException(shown, lineOf(text, "\"schema\"", 0),
                    "expected \"schema\": \"" + RunManifest.SCHEMA + "\", found "
                            + (m.schema() == null ? "no schema field" : json.quoted(m.schema())));
        }
        RunManifest.Deployment d = m.deployment();
        if (d != null) {
            int at = Math.max(text.indexOf("\"deployment\""), 0);
            positive(shown, text, at, "tp", d.tp());
            positive(shown, text, at, "dp", d.dp());
            positive(shown, text, at, "pp", d.pp());
            int ranks = d.tpOrOne() * d.dpOrOne() * (d.pp() == null ? 1 : d.pp());
            if (d.devices().size() > ranks) {
                // devices[i] is where rank i ran: a device past the last rank has no rank, and a
                // ledger for it would invent one (a list shorter than the ranks is one node of several)
                throw new RunFileException(shown, lineOf(text, "\"devices\"", at), "deployment.devices lists "
                        + d.devices().size() + " devices but TP " + d.tpOrOne() + (d.pp() != null && d.pp() > 1 ? " x PP " + d.pp() : "")
                        + " x DP " + d.dpOrOne() + " = " + ranks + (ranks == 1 ? " rank" : " ranks")
                        + " (devices[i] is where rank i ran, so " + d.devices().subList(ranks, d.devices().size())
                        + " would be ranks that do not exist); set \"tp\", \"dp\" and \"pp\" to the sizes the server ran with"
                        + " (TP x DP x PP = " + d.devices().size() + " here) or list only the ranks' devices");
            }
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            for (Integer id : d.devices()) {
                if (id == null || id < 0) {
                    throw new RunFileException(shown, lineOf(text, "\"devices\"", at),
                            "deployment.devices must be device ids >= 0, found " + id);
                }
                if (!seen.add(id)) {
                    throw new RunFileException(shown, lineOf(text, "\"devices\"", at),
                            "deployment.devices lists device " + id + " twice; give each rank's own device,"
                                    + " in rank order (ASCEND_RT_VISIBLE_DEVICES order)");
                }
            }
        }
        int momentsAt = Math.max(text.indexOf("\"moments\""), 0);
        for (java.util.Map.Entry<String, String> mo : m.moments().entrySet()) {
            if (RunInstants.epochUs(mo.getValue()).isEmpty()) {
                throw new RunFileException(shown, lineOf(text, json.quoted(mo.getKey()), momentsAt), "moments."
                        + mo.getKey() + " is " + json.quoted(mo.getValue()) + "; expected " + RunInstants.FORMAT
                        + " (msprof stamps samples in UTC: a time without its offset cannot be placed among them)");
            }
        }
        Path realDir = dir.toRealPath();
        if (d != null && d.modelDir() != null && !d.modelDir().isBlank()) {
            // The checkpoint is read like evidence, so it must be inside the run too; a checkpoint
            // elsewhere is named on the command line (analyze --model-dir) or saved into the run.
            checkPath(realDir, dir, shown, lineOf(text, "\"model_dir\"", 0), "deployment.model_dir \"" + d.modelDir() + "\"", d.modelDir(),
                    "; save its headers into the run (hbm-ledger weights DIR --save-manifest RUN/model/weights-manifest.json,"
                            + " then \"model_dir\": \"model/weights-manifest.json\") or name it with analyze --model-dir");
        }
        int from = Math.max(text.indexOf("\"evidence\""), 0);
        for (int i = 0; i < m.evidence().size(); i++) {
            EvidenceEntry e = m.evidence().get(i);
            if (e == null || e.file() == null || e.file().isBlank()) {
                throw new RunFileException(shown, lineOf(text, "{", from),
                        "evidence[" + i + "] has no \"file\"; each entry names a file relative to the run directory");
            }
            int line = lineOf(text, json.quoted(e.file()), from);
            from = Math.max(from, indexAfter(text, json.quoted(e.file()), from));
            checkPath(realDir, dir, shown, line, "evidence[" + i + "] \"" + e.file() + "\"", e.file(),
                    "; copy the file into the run directory and name it relative to it");
            if (e.moment() != null && Moment.parse(e.moment()).isEmpty()) {
                throw new RunFileException(shown, line, "evidence[" + i + "] (" + e.file()
                        + ") has moment \"" + e.moment() + "\"; expected one of " + Moment.names());
            }
            if (e.takenAt() != null && RunInstants.epochUs(e.takenAt()).isEmpty()) {
                throw new RunFileException(shown, line, "evidence[" + i + "] (" + e.file() + ") has taken_at "
                        + json.quoted(e.takenAt()) + "; expected " + RunInstants.FORMAT);
            }
            if (e.rank() != null && e.rank() < 0) {
                throw new RunFileException(shown, line, "evidence[" + i + "] (" + e.file()
                        + ") has rank " + e.rank() + "; expected a worker rank >= 0");
            }
        }
    }

    private static void checkPath(Path realDir, Path dir, String shown, int line, String what, String file,
                                  String fix) throws IOException, RunFileException {
        Path rel;
        try {
            rel = Path.of(file);
        } catch (java.nio.file.InvalidPathException ex) {
            throw new RunFileException(shown, line, what + " is not a valid path: " + ex.getMessage());
        }
        if (rel.isAbsolute() || file.startsWith("/") || file.startsWith("\\")) {
            throw new RunFileException(shown, line, what + " is an absolute path; paths in run.json must stay inside the run directory" + fix);
        }
        Path normal = rel.normalize();
        if (normal.startsWith("..") || normal.toString().isEmpty()) {
            throw new RunFileException(shown, line, what + " leaves the run directory" + fix);
        }
        // Follow symbolic links: the nearest existing ancestor (or the file itself) must really
        // be inside the run directory.
        Path p = dir.resolve(normal);
        while (p != null && !Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            p = p.getParent();
        }
        if (p != null) {
            Path real;
            try {
                real = p.toRealPath();
            } catch (IOException ex) {
                // A dangling symbolic link: where it points is outside anything we can check.
                throw new RunFileException(shown, line, what + " is a broken symbolic link" + fix);
            }
            if (!real.startsWith(realDir)) {
                throw new RunFileException(shown, line, what + " resolves through a symbolic link to "
                        + real + ", outside the run directory " + realDir + fix);
            }
        }
    }

    private static void positive(String shown, String text, int from, String name, Integer v)
            throws RunFileException {
        if (v != null && v < 1) {
            throw new RunFileException(shown, lineOf(text, "\"" + name + "\"", from),
                    "deployment." + name + " must be >= 1, found " + v);
        }
    }

    /** 1-based line of the first occurrence of needle at or after from; 0 when absent. */
    static int lineOf(String text, String needle, int from) {
        return TextLines.lineOf(text, needle, from);
    }

    private static int indexAfter(String text, String needle, int from) {
        int at = text.indexOf(needle, from);
        return at < 0 ? from : at + needle.length();
    }
}

package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.evidence.safetensors.CheckpointManifest;
import io.hbmledger.evidence.safetensors.LfsPointers;
import io.hbmledger.evidence.safetensors.ManifestJson;
import io.hbmledger.evidence.safetensors.ModelDirectory;
import io.hbmledger.evidence.safetensors.SafetensorsHeader;
import io.hbmledger.evidence.safetensors.SafetensorsIndex;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.Source;
import io.hbmledger.weights.Checkpoint;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.PlanOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the checkpoint a run names, for the ledger: a saved weights manifest
 * ({@value ManifestJson#SCHEMA}), a model directory (its safetensors headers, index and
 * config.json; a directory holding {@value #MANIFEST_NAME}, as collection writes, is read
 * through the manifest), a single .safetensors file, or loose checkpoint files listed as
 * evidence (config.json, the index, safetensors headers, Git LFS pointers). The I/O of the
 * ledger's checkpoint lines happens here; the ledger gets a {@link CheckpointEvidence}.
 */
public final class CheckpointLoader {

    /** The manifest's name inside a run's model directory (what collection writes). */
    static final String MANIFEST_NAME = "weights-manifest.json";

    private final ParallelLayout layout;
    private final PlanOptions options;

    CheckpointLoader(ParallelLayout layout, PlanOptions options) {
        this.layout = layout;
        this.options = options;
    }

    /** True when the file is a saved weights manifest (its first 4 KiB name the schema). */
    static boolean isManifest(Path p) throws IOException {
        if (!Files.isRegularFile(p)) {
            return false;
        }
        byte[] head;
        try (InputStream in = Files.newInputStream(p)) {
            head = in.readNBytes(4096);
        }
        String text = new String(head, StandardCharsets.UTF_8);
        return text.stripLeading().startsWith("{") && text.contains(ManifestJson.SCHEMA);
    }

    /**
     * A model directory, a manifest or one .safetensors file, named by {@code model_dir} or
     * {@code --model-dir}.
     *
     * @param shown the path as named in messages (one the user can open from here)
     * @param cited the path as the ledger cites it: relative to the run directory when inside
     *     it, so that a run directory gives the same ledger wherever it is
     * @throws EvidenceException when nothing there sizes any weights, or a header is malformed
     */
    CheckpointEvidence load(Path path, String shown, String cited) throws IOException, EvidenceException {
        if (Files.isDirectory(path)) {
            Path inside = path.resolve(MANIFEST_NAME);
            if (isManifest(inside)) {
                return manifest(inside, shown + "/" + MANIFEST_NAME, cited + "/" + MANIFEST_NAME);
            }
            CheckpointManifest m = ModelDirectory.scan(path);
            return of(cited, m, dirSources(path, shown, cited, m));
        }
        if (!Files.exists(path)) {
            throw new EvidenceException(shown, 0, "no such model directory or manifest; expected a checkpoint directory"
                    + " (config.json, *.safetensors), a weights manifest (" + ManifestJson.SCHEMA + ") or a .safetensors file");
        }
        if (path.getFileName().toString().endsWith(".safetensors")) {
            CheckpointManifest m = ModelDirectory.scanFile(path);
            return of(cited, m, List.of(CheckpointSources.header(path, cited)));
        }
        return manifest(path, shown, cited);
    }

    /** A saved weights manifest; {@code shown} and {@code cited} as for {@link #load}. */
    CheckpointEvidence manifest(Path file, String shown, String cited) throws IOException, EvidenceException {
        String text = TextBytes.utf8(file, shown);
        CheckpointManifest m = ManifestJson.read(shown, text);
        // Point at the index's total_size when the manifest holds one: the figure the total rests on.
        int line = TextLines.lineOf(text, "\"total_size\"", 0);
        Source src = line > 0 && m.index() != null && m.index().totalSize() != null
                ? new Source(cited, line, Long.toString(m.index().totalSize()))
                : new Source(cited, Math.max(1, TextLines.lineOf(text, ManifestJson.SCHEMA, 0)), ManifestJson.SCHEMA);
        return of(cited, m, List.of(src));
    }

    /**
     * One checkpoint file among the evidence, with the format the readers recognised.
     *
     * @param shown the path as named in messages
     * @param cited the path as the ledger cites it (relative to the run directory, as run.json has it)
     */
    record LooseFile(Path path, String shown, String cited, EvidenceFormat format) {
    }

    /** Evidence formats that {@link #loose} takes. */
    static boolean isCheckpointFormat(EvidenceFormat format) {
        return format == EvidenceFormat.MODEL_CONFIG || format == EvidenceFormat.SAFETENSORS_INDEX
                || format == EvidenceFormat.SAFETENSORS || format == EvidenceFormat.LFS_POINTER;
    }

    /**
     * Checkpoint files listed one by one among the evidence: config.json, the index, safetensors
     * files and LFS pointers; null when there are none. A PEFT adapter's files are not a model.
     */
    CheckpointEvidence loose(List<LooseFile> files) throws IOException, EvidenceException {
        String config = null;
        String configShown = null;
        String configCited = null;
        CheckpointManifest.Index index = null;
        List<CheckpointManifest.File> headers = new ArrayList<>();
        List<CheckpointManifest.LfsFile> lfs = new ArrayList<>();
        List<Source> sources = new ArrayList<>();
        for (LooseFile f : files) {
            Path p = f.path();
            String s = f.shown();
            String c = f.cited();
            String name = p.getFileName().toString();
            switch (f.format()) {
                case LFS_POINTER -> {
                    List<LfsPointers.Pointer> pointers = LfsPointers.parse(TextBytes.utf8(p, s));
                    for (LfsPointers.Pointer ptr : pointers) {
                        lfs.add(new CheckpointManifest.LfsFile(ptr.name() == null ? name : ptr.name(), ptr.size()));
                    }
                    // the pointer's own "size N" line, as written
                    if (!pointers.isEmpty()) {
                        sources.add(new Source(c, pointers.get(0).line(), "size " + pointers.get(0).text()));
                    }
                }
                case SAFETENSORS -> {
                    if (!name.endsWith(".safetensors") || name.contains("adapter_model")) {
                        continue; // a header saved as JSON (no file to size), or a PEFT adapter, not the model
                    }
                    SafetensorsHeader h = SafetensorsHeader.read(p, s);
                    headers.add(new CheckpointManifest.File(name, Files.size(p), h.headerBytes(), h.tensors()));
                    sources.add(CheckpointSources.header(p, c));
                }
                case SAFETENSORS_INDEX -> {
                    SafetensorsIndex idx = SafetensorsIndex.parse(s, TextBytes.utf8(p, s));
                    index = new CheckpointManifest.Index(name, idx.totalSize(), new ArrayList<>(idx.weightMap().keySet()),
                            new ArrayList<>(idx.shards()));
                    sources.add(indexSource(c, idx));
                }
                case MODEL_CONFIG -> {
                    config = TextBytes.utf8(p, s);
                    configShown = s;
                    configCited = c;
                }
                default -> {
                }
            }
        }
        if (config == null && index == null && headers.isEmpty()) {
            return null;
        }
        if (config != null) {
            sources.addAll(CheckpointSources.config(configCited, config));
        }
        String where = parentOf(files.get(0).shown());
        try {
            Checkpoint ck = Checkpoint.from(new CheckpointManifest(where, headers, lfs, index, config));
            return of(parentOf(files.get(0).cited()), ck, index == null ? null : index.totalSize(), lfs, sources);
        } catch (EvidenceException e) {
            String assumed = where + "/config.json";
            if (configShown == null || !e.file().equals(assumed)) {
                throw e;
            }
            // Checkpoint names the config after the directory; say which file it really was.
            String prefix = e.file() + (e.line() > 0 ? ":" + e.line() : "") + ": ";
            throw new EvidenceException(configShown, e.line(), e.getMessage().substring(prefix.length()));
        }
    }

    private CheckpointEvidence of(String cited, CheckpointManifest m, List<Source> sources) throws EvidenceException {
        return of(cited, Checkpoint.from(m), m.index() == null ? null : m.index().totalSize(), m.lfsPointers(), sources);
    }

    private CheckpointEvidence of(String cited, Checkpoint ck, Long indexTotal, List<CheckpointManifest.LfsFile> lfs,
                                  List<Source> sources) {
        long lfsBytes = lfs.stream().mapToLong(CheckpointManifest.LfsFile::size).sum();
        return new CheckpointEvidence(cited, ck, layout, options, sources, indexTotal, lfs.size(), lfsBytes);
    }

    private static List<Source> dirSources(Path dir, String shown, String cited, CheckpointManifest m)
            throws IOException, EvidenceException {
        List<Source> out = new ArrayList<>();
        if (m.index() != null) {
            String s = shown + "/" + m.index().name();
            out.add(indexSource(cited + "/" + m.index().name(),
                    SafetensorsIndex.parse(s, TextBytes.utf8(dir.resolve(m.index().name()), s))));
        }
        for (CheckpointManifest.File f : m.files()) {
            out.add(CheckpointSources.header(dir.resolve(f.name()), cited + "/" + f.name()));
            break;
        }
        if (m.configJson() != null) {
            out.addAll(CheckpointSources.config(cited + "/config.json", m.configJson()));
        }
        return out;
    }

    private static Source indexSource(String shown, SafetensorsIndex idx) {
        return idx.totalSize() == null ? new Source(shown, idx.weightMapLine(), "weight_map")
                : new Source(shown, idx.totalSizeLine(), Long.toString(idx.totalSize()));
    }

    private static String parentOf(String shown) {
        int slash = shown.lastIndexOf('/');
        return slash <= 0 ? "." : shown.substring(0, slash);
    }
}

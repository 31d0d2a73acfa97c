package io.hbmledger.evidence.safetensors;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.TextBytes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Scans a Hugging Face model directory into a {@link CheckpointManifest}: reads the header of
 * each safetensors file (never its data), recognises Git LFS pointers in their place, and keeps
 * the index summary and config.json. When an index is present only the shards it names count,
 * as vLLM's loader filters by the index ({@code filter_duplicate_safetensors_files}), so a stray
 * {@code consolidated.safetensors} beside the shards is not added twice.
 */
public final class ModelDirectory {

    private static final String INDEX_SUFFIX = ".safetensors.index.json";

    private ModelDirectory() {
    }

    /**
     * Whatever {@code hbm-ledger weights} accepts: a model directory ({@link #scan}), a single
     * safetensors file or Git LFS pointer ({@link #scanFile}, recognised by its name or by its
     * 8-byte length prefix followed by '{'), a Hugging Face config.json on its own (sizes are then
     * estimated from it), or a weights manifest ({@link ManifestJson}).
     *
     * @throws EvidenceException for every unusable input (missing, unreadable, binary, not JSON,
     *     not one of the above), naming the file and, for JSON errors, the line
     */
    public static CheckpointManifest open(Path path) throws EvidenceException {
        String shown = path.toString();
        try {
            if (Files.isDirectory(path) || !Files.exists(path)) {
                return scan(path);
            }
            if (!Files.isRegularFile(path)) {
                throw new EvidenceException(shown, 0, "not a regular file or directory; expected a model directory, "
                        + "a .safetensors file or a weights manifest (" + ManifestJson.SCHEMA + ")");
            }
            long size = Files.size(path);
            if (path.getFileName().toString().endsWith(".safetensors") || isLfsPointer(path, size) || looksLikeSafetensors(path, size)) {
                return scanFile(path);
            }
            byte[] head;
            try (InputStream in = Files.newInputStream(path)) {
                head = in.readNBytes(4);
            }
            if (head.length == 4 && head[0] == 'P' && head[1] == 'K' && head[2] == 3 && head[3] == 4) {
                throw new EvidenceException(shown, 0, "a zip archive (a PyTorch .bin/.pt checkpoint?), not safetensors: "
                        + "only safetensors headers are read; pass the model directory with its *.safetensors files");
            }
            String text = TextBytes.utf8(path, shown);
            String lead = text.stripLeading();
            if (!lead.startsWith("{")) {
                throw new EvidenceException(shown, 1, "not JSON (starts with "
                        + (lead.isEmpty() ? "nothing: the file is empty" : "\"" + lead.substring(0, Math.min(20, lead.length())).split("\\R")[0] + "\"")
                        + "); expected a model directory, a .safetensors file or a weights manifest (" + ManifestJson.SCHEMA + ")");
            }
            if (text.contains("\"weight_map\"") && !text.contains(ManifestJson.SCHEMA)) {
                Path dir = path.toAbsolutePath().getParent();
                throw new EvidenceException(shown, 0, "a safetensors index, which holds no shapes: pass the model directory "
                        + (dir == null ? "" : "(" + dir + ") ") + "with config.json or the shards instead");
            }
            if (!text.contains(ManifestJson.SCHEMA) && (text.contains("\"model_type\"") || text.contains("\"num_hidden_layers\"")
                    || text.contains("\"architectures\""))) {
                // a config.json on its own: the estimate from config.json shapes, as for a directory holding only it
                return new CheckpointManifest(shown, List.of(), List.of(), null, text);
            }
            return ManifestJson.read(shown, text);
        } catch (AccessDeniedException e) {
            throw new EvidenceException(e.getFile() == null ? shown : e.getFile(), 0,
                    "permission denied; make the file readable (chmod / run as its owner) and try again");
        } catch (NoSuchFileException e) {
            throw new EvidenceException(e.getFile() == null ? shown : e.getFile(), 0, "no such file");
        } catch (IOException e) {
            throw new EvidenceException(shown, 0, "cannot read: " + e);
        }
    }

    /** The safetensors layout: an 8-byte little-endian header length that fits the file, then '{'. */
    private static boolean looksLikeSafetensors(Path p, long size) throws IOException {
        if (size < 10) {
            return false;
        }
        try (InputStream in = Files.newInputStream(p)) {
            byte[] head = in.readNBytes(9);
            long n = ByteBuffer.wrap(head, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
            return head.length == 9 && n > 1 && n <= size - 8 && head[8] == '{';
        }
    }

    /**
     * @throws EvidenceException when the path is not a directory, holds neither weights nor a
     *     config.json, or a safetensors header is malformed (naming the file)
     */
    public static CheckpointManifest scan(Path dir) throws IOException, EvidenceException {
        String shown = dir.toString();
        if (!Files.isDirectory(dir)) {
            throw new EvidenceException(shown, 0, "expected a model directory (config.json, *.safetensors), found "
                    + (Files.exists(dir) ? "a file" : "nothing") + "; pass the directory vLLM was started with");
        }
        List<Path> entries;
        try (Stream<Path> s = Files.list(dir)) {
            entries = new ArrayList<>(s.filter(Files::isRegularFile).toList());
        }
        Collections.sort(entries);
        Path indexPath = entries.stream().filter(p -> p.getFileName().toString().endsWith(INDEX_SUFFIX))
                .filter(p -> p.getFileName().toString().startsWith("model")).findFirst()
                .orElse(entries.stream().filter(p -> p.getFileName().toString().endsWith(INDEX_SUFFIX)).findFirst().orElse(null));
        CheckpointManifest.Index index = null;
        Set<String> wanted = null;
        if (indexPath != null) {
            String text = TextBytes.utf8(indexPath, indexPath.toString());
            if (text.startsWith(LfsPointers.VERSION_PREFIX)) {
                throw new EvidenceException(indexPath.toString(), 1, "the index is a Git LFS pointer; run `git lfs pull` in " + shown);
            }
            SafetensorsIndex idx = SafetensorsIndex.parse(indexPath.toString(), text);
            wanted = new LinkedHashSet<>(idx.shards());
            index = new CheckpointManifest.Index(indexPath.getFileName().toString(), idx.totalSize(),
                    new ArrayList<>(idx.weightMap().keySet()), new ArrayList<>(wanted));
        }
        List<CheckpointManifest.File> files = new ArrayList<>();
        List<CheckpointManifest.LfsFile> lfs = new ArrayList<>();
        for (Path p : entries) {
            String name = p.getFileName().toString();
            if (!name.endsWith(".safetensors") || (wanted != null && !wanted.contains(name))) {
                continue;
            }
            long size = Files.size(p);
            if (isLfsPointer(p, size)) {
                List<LfsPointers.Pointer> ptr = LfsPointers.parse(TextBytes.utf8(p, p.toString()));
                lfs.add(new CheckpointManifest.LfsFile(name, ptr.isEmpty() ? 0 : ptr.get(0).size()));
                continue;
            }
            SafetensorsHeader h = SafetensorsHeader.read(p, p.toString());
            files.add(new CheckpointManifest.File(name, size, h.headerBytes(), h.tensors()));
        }
        Path config = dir.resolve("config.json");
        String configJson = Files.isRegularFile(config) ? TextBytes.utf8(config, config.toString()) : null;
        if (files.isEmpty() && lfs.isEmpty() && index == null && configJson == null) {
            throw new EvidenceException(shown, 0, "no weights here: expected *.safetensors files, "
                    + "model.safetensors.index.json or at least config.json; found none of them");
        }
        return new CheckpointManifest(shown, files, lfs, index, configJson);
    }

    /**
     * One safetensors file on its own (a single-file checkpoint), with config.json from the
     * same directory when there is one.
     *
     * @throws EvidenceException when the file is a Git LFS pointer or its header is malformed
     */
    public static CheckpointManifest scanFile(Path file) throws IOException, EvidenceException {
        long size = Files.size(file);
        if (isLfsPointer(file, size)) {
            throw new EvidenceException(file.toString(), 1, "a Git LFS pointer, not the weights: the checkpoint was cloned without Git LFS; run `git lfs pull`");
        }
        SafetensorsHeader h = SafetensorsHeader.read(file, file.toString());
        Path dir = file.toAbsolutePath().getParent();
        Path config = dir == null ? null : dir.resolve("config.json");
        String configJson = config != null && Files.isRegularFile(config) ? TextBytes.utf8(config, config.toString()) : null;
        return new CheckpointManifest(file.toString(), List.of(new CheckpointManifest.File(file.getFileName().toString(), size,
                h.headerBytes(), h.tensors())), List.of(), null, configJson);
    }

    /** True when the file is a small text starting with the Git LFS pointer version line. */
    public static boolean isLfsPointer(Path p, long size) throws IOException {
        if (size > 1024) {
            return false;
        }
        try (InputStream in = Files.newInputStream(p)) {
            byte[] head = in.readNBytes(LfsPointers.VERSION_PREFIX.length());
            return new String(head, StandardCharsets.UTF_8).equals(LfsPointers.VERSION_PREFIX);
        }
    }
}

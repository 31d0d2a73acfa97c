package io.hbmledger.evidence.safetensors;

import io.hbmledger.evidence.EvidenceException;
import java.io.IOException;
import java.io.InputStream;
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
            String text = Files.readString(indexPath, StandardCharsets.UTF_8);
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
                List<LfsPointers.Pointer> ptr = LfsPointers.parse(Files.readString(p, StandardCharsets.UTF_8));
                lfs.add(new CheckpointManifest.LfsFile(name, ptr.isEmpty() ? 0 : ptr.get(0).size()));
                continue;
            }
            SafetensorsHeader h = SafetensorsHeader.read(p, p.toString());
            files.add(new CheckpointManifest.File(name, size, h.headerBytes(), h.tensors()));
        }
        Path config = dir.resolve("config.json");
        String configJson = Files.isRegularFile(config) ? Files.readString(config, StandardCharsets.UTF_8) : null;
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
        String configJson = config != null && Files.isRegularFile(config) ? Files.readString(config, StandardCharsets.UTF_8) : null;
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

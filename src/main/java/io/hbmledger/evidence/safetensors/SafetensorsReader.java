package io.hbmledger.evidence.safetensors;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads checkpoint files: safetensors headers ({@code safetensors}: tensor_bytes_total,
 * tensor_count, header_bytes), {@code model.safetensors.index.json}
 * ({@code safetensors-index}: total_size, tensor_count, shard_count) and Git LFS pointers where
 * weights were expected ({@code lfs-pointer}: one lfs_object_size per pointer, and a warning).
 * Only the 8-byte length and the JSON header of a safetensors file are read, never its data.
 */
public final class SafetensorsReader implements EvidenceReader {


    /** What a file is to this reader; a header saved as JSON on its own is reported as {@code safetensors}. */
    private enum Kind {
        LFS_POINTER(EvidenceFormat.LFS_POINTER),
        INDEX(EvidenceFormat.SAFETENSORS_INDEX),
        HEADER_JSON(EvidenceFormat.SAFETENSORS),
        SAFETENSORS(EvidenceFormat.SAFETENSORS);

        final EvidenceFormat format;

        Kind(EvidenceFormat format) {
            this.format = format;
        }
    }

    @Override
    public Optional<EvidenceFormat> detect(FileHead head) {
        return kind(head).map(k -> k.format);
    }

    private static Optional<Kind> kind(FileHead head) {
        byte[] b = head.head();
        boolean namedSafetensors = head.fileName().endsWith(".safetensors");
        if (!head.looksBinary()) {
            String text = head.text();
            if (text.startsWith(LfsPointers.VERSION_PREFIX) || text.contains("\n" + LfsPointers.VERSION_PREFIX)) {
                return Optional.of(Kind.LFS_POINTER);
            }
            String trimmed = text.stripLeading();
            if (trimmed.startsWith("{") && text.contains("\"weight_map\"")) {
                return Optional.of(Kind.INDEX);
            }
            if (trimmed.startsWith("{") && text.contains("\"data_offsets\"") && text.contains("\"dtype\"")
                    && !text.contains(ManifestJson.SCHEMA)) {
                return Optional.of(Kind.HEADER_JSON);
            }
        }
        // a length whose two top bytes are zero (< 256 TiB), then '{': the safetensors layout
        boolean layout = b.length >= 9 && b[8] == '{' && b[7] == 0 && b[6] == 0;
        if (layout || namedSafetensors) {
            return Optional.of(Kind.SAFETENSORS);
        }
        return Optional.empty();
    }

    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head) throws IOException, EvidenceException {
        Kind kind = kind(head).orElseThrow(() -> new EvidenceException(displayPath, 0, "not a safetensors file, index or LFS pointer"));
        return switch (kind) {
            case LFS_POINTER -> lfs(displayPath, TextBytes.utf8(file, displayPath));
            case INDEX -> index(displayPath, TextBytes.utf8(file, displayPath));
            case HEADER_JSON -> detachedHeader(displayPath, Files.readAllBytes(file));
            default -> header(displayPath, SafetensorsHeader.read(file, displayPath));
        };
    }

    /** Observations of one safetensors header. Pure. */
    public static EvidenceFile header(String display, SafetensorsHeader h) {
        List<Observation> obs = new ArrayList<>();
        long total = h.tensorBytesTotal();
        obs.add(Observation.bytes(Quantity.TENSOR_BYTES_TOTAL, total, 1, Long.toString(total)));
        obs.add(Observation.value(Quantity.TENSOR_COUNT, h.tensors().size(), 1, Integer.toString(h.tensors().size())));
        obs.add(Observation.bytes(Quantity.HEADER_BYTES, h.headerBytes(), 1, Long.toString(h.headerBytes())));
        return new EvidenceFile(display, EvidenceFormat.SAFETENSORS, obs, h.warnings());
    }

    /**
     * A header saved as JSON without its file: tensor_bytes_total and tensor_count are exact;
     * header_bytes is not reported (the saved text need not have the original length or padding).
     */
    public static EvidenceFile detachedHeader(String display, byte[] json) throws EvidenceException {
        SafetensorsHeader h = SafetensorsHeader.parseDetached(display, new String(json, StandardCharsets.UTF_8).strip()
                .getBytes(StandardCharsets.UTF_8));
        long total = h.tensorBytesTotal();
        List<String> warnings = new ArrayList<>(h.warnings());
        warnings.add("line 1: a safetensors header saved as JSON, without its file: offsets are not checked against a data section and header_bytes is not known");
        return new EvidenceFile(display, EvidenceFormat.SAFETENSORS, List.of(
                Observation.bytes(Quantity.TENSOR_BYTES_TOTAL, total, 1, Long.toString(total)),
                Observation.value(Quantity.TENSOR_COUNT, h.tensors().size(), 1, Integer.toString(h.tensors().size()))), warnings);
    }

    /** Observations of an index file. Pure. */
    public static EvidenceFile index(String display, String text) throws EvidenceException {
        SafetensorsIndex idx = SafetensorsIndex.parse(display, text);
        List<Observation> obs = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        if (idx.totalSize() != null) {
            obs.add(Observation.bytes(Quantity.TOTAL_SIZE, idx.totalSize(), idx.totalSizeLine(), Long.toString(idx.totalSize())));
        } else {
            warnings.add("line " + idx.weightMapLine() + ": no metadata.total_size; the checkpoint's byte total is unknown from this file");
        }
        int n = idx.weightMap().size();
        obs.add(Observation.value(Quantity.TENSOR_COUNT, n, idx.weightMapLine(), n + " weight_map entries"));
        int shards = idx.shards().size();
        obs.add(Observation.value(Quantity.SHARD_COUNT, shards, idx.weightMapLine(), shards + " shard files"));
        return new EvidenceFile(display, EvidenceFormat.SAFETENSORS_INDEX, obs, warnings);
    }

    /** Observations of one or more LFS pointers. Pure. */
    public static EvidenceFile lfs(String display, String text) throws EvidenceException {
        List<LfsPointers.Pointer> pointers = LfsPointers.parse(text);
        if (pointers.isEmpty()) {
            throw new EvidenceException(display, 1, "a Git LFS pointer without a readable \"size <bytes>\" line;"
                    + " expected version, oid and size lines, the size in bytes (at most 18 digits)");
        }
        List<Observation> obs = new ArrayList<>();
        long sum = 0;
        for (LfsPointers.Pointer p : pointers) {
            obs.add(Observation.bytes(Quantity.LFS_OBJECT_SIZE, p.size(), p.line(), p.text()));
            sum += p.size();
        }
        String what = pointers.size() == 1 ? "a Git LFS pointer (" + sum + " bytes)"
                : pointers.size() + " Git LFS pointers (" + sum + " bytes in total)";
        List<String> warnings = List.of("line " + pointers.get(0).line() + ": " + what
                + " where weights were expected: the checkpoint was cloned without Git LFS, so no tensor headers are here; run `git lfs pull` in the model directory");
        return new EvidenceFile(display, EvidenceFormat.LFS_POINTER, obs, warnings);
    }
}

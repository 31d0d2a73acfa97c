package io.hbmledger.weights;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.modelconfig.ModelConfig;
import io.hbmledger.evidence.modelconfig.ModelConfigParser;
import io.hbmledger.evidence.safetensors.CheckpointManifest;
import io.hbmledger.evidence.safetensors.SafetensorsFindings;
import io.hbmledger.evidence.safetensors.SafetensorsTensor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tensors a model is made of, with where they came from: safetensors headers (exact bytes)
 * or config.json (estimated). Built from a {@link CheckpointManifest}; pure.
 *
 * @param tensors every tensor
 * @param source how the tensor list was obtained
 * @param config the parsed config.json, or null when there is none
 * @param notes findings about the checkpoint (LFS pointers, index mismatches, estimate caveats)
 */
public record Checkpoint(List<CheckpointTensor> tensors, Source source, ModelConfig config, List<String> notes) {

    /** Where the tensor list came from. */
    public enum Source {
        HEADERS("exact", "safetensors headers"),
        CONFIG("estimated", "config.json shapes");

        private final String confidence;
        private final String what;

        Source(String confidence, String what) {
            this.confidence = confidence;
            this.what = what;
        }

        /** {@code exact} or {@code estimated}, the project's confidence words. */
        public String confidence() {
            return confidence;
        }

        public String what() {
            return what;
        }
    }

    public Checkpoint {
        tensors = List.copyOf(tensors);
        notes = List.copyOf(notes);
    }

    /** Sum of all tensors' bytes. */
    public long totalBytes() {
        long s = 0;
        for (CheckpointTensor t : tensors) {
            s += t.bytes();
        }
        return s;
    }

    /**
     * Headers when every weights file has one; otherwise an estimate from config.json, checked
     * against the index's tensor names and total_size when an index is present.
     *
     * @throws EvidenceException when there are no headers and no usable config.json
     */
    public static Checkpoint from(CheckpointManifest m) throws EvidenceException {
        String where = m.modelDir() == null ? "checkpoint" : m.modelDir();
        ModelConfig config = m.configJson() == null ? null : ModelConfigParser.parse(configName(where), m.configJson());
        List<String> notes = new ArrayList<>();
        long lfsBytes = m.lfsPointers().stream().mapToLong(CheckpointManifest.LfsFile::size).sum();
        if (!m.lfsPointers().isEmpty()) {
            notes.add(m.lfsPointers().size() + " weights file(s) are Git LFS pointers (" + lfsBytes
                    + " bytes of objects not downloaded): the checkpoint was cloned without Git LFS");
        }
        if (!m.files().isEmpty() && (m.lfsPointers().isEmpty() || config == null)) {
            List<CheckpointTensor> tensors = new ArrayList<>();
            for (CheckpointManifest.File f : m.files()) {
                for (SafetensorsTensor t : f.tensors()) {
                    tensors.add(new CheckpointTensor(t.name(), t.dtypeName(), t.shape(), t.bytes()));
                }
                SafetensorsFindings.of(f.tensors()).forEach(w -> notes.add(f.name() + ": " + w));
            }
            if (!m.lfsPointers().isEmpty()) {
                notes.add("only the " + m.files().size() + " downloaded file(s) are counted; the total is incomplete");
            }
            checkIndex(tensors, m, notes);
            return new Checkpoint(tensors, Source.HEADERS, config, notes);
        }
        if (config == null) {
            // an index without its shards (a partial download) said only "no safetensors headers" (fresh-user finding)
            String shards = m.index() == null || !m.lfsPointers().isEmpty() || m.index().shards().isEmpty() ? ""
                    : " (" + m.index().name() + " names " + m.index().shards().size() + " shard file(s), e.g. "
                    + m.index().shards().get(0) + ", and none of them is in the directory)";
            throw new EvidenceException(where, 0, "no weights to size: no safetensors headers"
                    + (m.lfsPointers().isEmpty() ? "" : " (only Git LFS pointers; run `git lfs pull`)") + shards
                    + " and no config.json to estimate from; pass the directory that holds the shards or config.json");
        }
        List<CheckpointTensor> est;
        try {
            est = ConfigEstimator.tensors(config);
        } catch (IllegalArgumentException e) {
            throw new EvidenceException(configName(where), 0, e.getMessage());
        }
        if (m.files().isEmpty() && m.lfsPointers().isEmpty() && m.index() == null) {
            notes.add("no weights files in the directory (no *.safetensors, no index): sizes estimated from config.json alone");
        } else if (!m.files().isEmpty()) {
            notes.add("some weights files are missing their data (LFS pointers): sizes estimated from config.json");
        }
        notes.addAll(ConfigEstimator.caveats(config));
        checkIndex(est, m, notes);
        return new Checkpoint(est, Source.CONFIG, config, notes);
    }

    /** A config.json passed on its own is named as itself; otherwise the one in the model directory. */
    private static String configName(String where) {
        return where.endsWith(".json") ? where : where + "/config.json";
    }

    private static void checkIndex(List<CheckpointTensor> tensors, CheckpointManifest m, List<String> notes) {
        if (m.index() == null) {
            return;
        }
        Set<String> mine = new HashSet<>();
        tensors.forEach(t -> mine.add(t.name()));
        Set<String> theirs = new HashSet<>(m.index().tensorNames());
        long missing = theirs.stream().filter(n -> !mine.contains(n)).count();
        long extra = mine.stream().filter(n -> !theirs.contains(n)).count();
        if (missing == 0 && extra == 0) {
            notes.add("tensor names match the index's weight_map (" + theirs.size() + " tensors)");
        } else {
            notes.add("tensor names differ from the index's weight_map: " + missing + " in the index only, " + extra
                    + " here only" + (missing > 0 ? " (e.g. " + theirs.stream().filter(n -> !mine.contains(n)).sorted().findFirst().orElse("") + ")" : ""));
        }
        Long ts = m.index().totalSize();
        if (ts != null) {
            long total = tensors.stream().mapToLong(CheckpointTensor::bytes).sum();
            notes.add(total == ts ? "total " + total + " bytes equals the index's total_size"
                    : "total " + total + " bytes differs from the index's total_size " + ts + " by " + (total - ts) + " bytes");
        }
    }
}

package io.hbmledger.evidence.safetensors;

import java.util.List;

/**
 * What a model directory says about its weights, without any tensor data: each safetensors
 * file's size and header, Git LFS pointers found where weights should be, the index summary,
 * and config.json verbatim. Collection saves it as JSON ({@link ManifestJson},
 * schema {@value ManifestJson#SCHEMA}) so that a run can be analysed where the model is not.
 *
 * @param modelDir the directory as named when scanned (informational)
 * @param files safetensors files with their headers, in name order
 * @param lfsPointers Git LFS pointer files found where weights were expected
 * @param index the {@code model.safetensors.index.json} summary, or null
 * @param configJson config.json's text exactly as read, or null when there is none
 */
public record CheckpointManifest(String modelDir, List<File> files, List<LfsFile> lfsPointers, Index index, String configJson) {

    public CheckpointManifest {
        files = List.copyOf(files);
        lfsPointers = List.copyOf(lfsPointers);
    }

    /**
     * One safetensors file.
     *
     * @param name file name relative to the model directory
     * @param size file size in bytes
     * @param headerBytes the JSON header's length N in bytes
     * @param tensors the header's tensors
     */
    public record File(String name, long size, long headerBytes, List<SafetensorsTensor> tensors) {
        public File {
            tensors = List.copyOf(tensors);
        }
    }

    /**
     * A Git LFS pointer where a weights file should be.
     *
     * @param name file name
     * @param size the LFS object's size in bytes (the real file's size)
     */
    public record LfsFile(String name, long size) {
    }

    /**
     * @param name index file name
     * @param totalSize {@code metadata.total_size} in bytes, or null
     * @param tensorNames the weight_map's tensor names
     * @param shards shard file names
     */
    public record Index(String name, Long totalSize, List<String> tensorNames, List<String> shards) {
        public Index {
            tensorNames = List.copyOf(tensorNames);
            shards = List.copyOf(shards);
        }
    }

    /** Sum of all tensors' bytes over all files with headers. */
    public long headerTensorBytes() {
        long s = 0;
        for (File f : files) {
            for (SafetensorsTensor t : f.tensors()) {
                s += t.bytes();
            }
        }
        return s;
    }
}

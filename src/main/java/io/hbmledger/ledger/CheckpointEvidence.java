package io.hbmledger.ledger;

import io.hbmledger.weights.Checkpoint;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.PlanOptions;
import java.util.List;

/**
 * The model checkpoint a run names (run.json {@code deployment.model_dir}, a saved weights
 * manifest among the evidence, or {@code analyze --model-dir}), read at the edge and handed to
 * the ledger as data: the tensors (from safetensors headers, or estimated from config.json), the
 * layout and serving options to plan it under, and the facts about its files that decide how
 * sure its total is. No I/O here.
 *
 * @param shown the checkpoint as shown to the user (a manifest file or a model directory)
 * @param checkpoint the tensors and config
 * @param layout TP / DP / PP / EP of the deployment
 * @param options vLLM {@code --dtype}, {@code --kv-cache-dtype}, KV block size
 * @param sources the evidence lines the checkpoint figures come from (manifest, index
 *     {@code total_size}, config.json)
 * @param indexTotalSize {@code metadata.total_size} of the safetensors index in bytes, null
 *     without an index (or when the index has none)
 * @param lfsFiles weights files that were Git LFS pointers instead of data
 * @param lfsObjectBytes the LFS objects' sizes summed (whole files: headers and data), bytes
 */
public record CheckpointEvidence(String shown, Checkpoint checkpoint, ParallelLayout layout, PlanOptions options,
                                 List<Source> sources, Long indexTotalSize, int lfsFiles, long lfsObjectBytes) {

    public CheckpointEvidence {
        sources = List.copyOf(sources);
    }
}

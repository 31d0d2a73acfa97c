package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.safetensors.CheckpointManifest;
import io.hbmledger.evidence.safetensors.ModelDirectory;
import io.hbmledger.weights.Checkpoint;
import java.nio.file.Path;

/**
 * The checkpoint the {@code weights} verb plans: a model directory (config.json, safetensors
 * headers, index), a saved weights manifest, or one .safetensors file, read into its manifest
 * (kept for {@code --save-manifest}) and the typed checkpoint.
 */
public final class ModelLoader {

    /** The manifest as read, and the checkpoint made from it. */
    public record LoadedModel(CheckpointManifest manifest, Checkpoint checkpoint) {
    }

    private ModelLoader() {
    }

    /** @throws EvidenceException naming the file and line when a file is unusable */
    public static LoadedModel load(Path model) throws EvidenceException {
        CheckpointManifest manifest = ModelDirectory.open(model);
        return new LoadedModel(manifest, Checkpoint.from(manifest));
    }
}

package io.hbmledger.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.safetensors.CheckpointManifest;
import io.hbmledger.evidence.safetensors.ModelDirectory;
import io.hbmledger.settings.RunReading;
import io.hbmledger.weights.Checkpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The model a plan is for: a checkpoint directory, a config.json, a saved weights manifest, a
 * .safetensors file, or a run directory whose run.json names its checkpoint.
 *
 * @param name as shown
 * @param checkpoint the tensors (exact from headers, else estimated from config.json)
 * @param maxPosition config.json's max_position_embeddings, or null
 */
public record PlanModel(String name, Checkpoint checkpoint, Integer maxPosition) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** True when {@code p} is a run directory (holds run.json) or run.json itself. */
    public static boolean isRun(Path p) {
        return Files.isRegularFile(p.resolve("run.json")) || p.getFileName() != null && p.getFileName().toString().equals("run.json");
    }

    /**
     * @throws EvidenceException when the checkpoint cannot size anything (file named)
     */
    public static PlanModel open(Path p) throws EvidenceException {
        CheckpointManifest m = ModelDirectory.open(p);
        return new PlanModel(p.toString(), Checkpoint.from(m), maxPosition(m.configJson()));
    }

    /**
     * The checkpoint a read run names.
     *
     * @throws EvidenceException when the run names none (its run.json is named)
     */
    public static PlanModel ofRun(Path runDir, RunReading r) throws EvidenceException {
        if (r.run().evidence().checkpoint() == null) {
            throw new EvidenceException(runDir.resolve("run.json").toString(), 0, "the run names no checkpoint (no deployment.model_dir,"
                    + " no weights manifest or config.json among its evidence); name the model: hbm-ledger plan MODEL_DIR --calibrate "
                    + runDir);
        }
        Checkpoint c = r.run().evidence().checkpoint().checkpoint();
        return new PlanModel(runDir + " (" + r.run().evidence().checkpoint().shown() + ")", c, null);
    }

    private static Integer maxPosition(String configJson) {
        if (configJson == null) {
            return null;
        }
        try {
            JsonNode c = JSON.readTree(configJson);
            JsonNode t = c.has("text_config") ? c.get("text_config") : c;
            JsonNode v = t.get("max_position_embeddings");
            return v != null && v.canConvertToInt() && v.asInt() > 0 ? v.asInt() : null;
        } catch (IOException e) {
            return null; // Checkpoint.from has already refused a config that is not JSON
        }
    }
}

package io.hbmledger.settings;

import java.util.Locale;

/**
 * A serving setting that changes where memory goes, named as vLLM's engine arguments name it
 * ({@code gpu_memory_utilization}, {@code max_model_len}, ...), plus the engine's version.
 */
public enum Setting {
    /** vLLM's version as printed ({@code v0.9.1}, {@code 0.11.0}). */
    ENGINE_VERSION("engine_version"),
    /** {@code V0} or {@code V1}: which budget arithmetic applies. */
    ENGINE("engine"),
    GPU_MEMORY_UTILIZATION("gpu_memory_utilization"),
    MAX_MODEL_LEN("max_model_len"),
    MAX_NUM_SEQS("max_num_seqs"),
    MAX_NUM_BATCHED_TOKENS("max_num_batched_tokens"),
    /** {@code True}: no graph capture (eager); {@code False}: graphs are captured. */
    ENFORCE_EAGER("enforce_eager"),
    DTYPE("dtype"),
    KV_CACHE_DTYPE("kv_cache_dtype"),
    QUANTIZATION("quantization"),
    TENSOR_PARALLEL_SIZE("tensor_parallel_size"),
    PIPELINE_PARALLEL_SIZE("pipeline_parallel_size"),
    DATA_PARALLEL_SIZE("data_parallel_size"),
    BLOCK_SIZE("block_size"),
    SPECULATIVE_CONFIG("speculative_config"),
    MODEL("model");

    private final String key;

    Setting(String key) {
        this.key = key;
    }

    /** The engine-argument name. */
    public String key() {
        return key;
    }

    /** The setting an engine-argument name (or its CLI spelling with dashes) stands for, or null. */
    public static Setting byKey(String key) {
        String k = key.toLowerCase(Locale.ROOT).replaceFirst("^--", "").replace('-', '_');
        if (k.equals("max_seq_len")) {
            return MAX_MODEL_LEN;
        }
        for (Setting s : values()) {
            if (s.key.equals(k)) {
                return s;
            }
        }
        return null;
    }
}

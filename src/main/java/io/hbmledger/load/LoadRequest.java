package io.hbmledger.load;

import java.nio.file.Path;
import java.util.List;

/**
 * What to load: one run directory (or its run.json), or evidence files described by
 * {@link FileOptions}.
 *
 * @param inputs a run directory, or evidence files (an msprof export directory counts as one)
 * @param files what the user says about evidence files; {@link FileOptions#none()} for a run directory
 * @param serverPids pids of the serving processes, or null for run.json's (none for files)
 * @param modelDir the checkpoint vLLM served, overriding run.json's {@code deployment.model_dir}; or null
 */
public record LoadRequest(List<Path> inputs, FileOptions files, List<Long> serverPids, Path modelDir) {

    public LoadRequest {
        inputs = List.copyOf(inputs);
        files = files == null ? FileOptions.none() : files;
    }

    /** The inputs alone, nothing said about them. */
    public static LoadRequest of(Path... inputs) {
        return new LoadRequest(List.of(inputs), FileOptions.none(), null, null);
    }
}

package io.hbmledger.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code run.json} atomically ({@link AtomicFile}): a run interrupted at any point keeps
 * either the previous manifest or the new one, never a partial file.
 */
public final class RunManifestWriter {

    private final RunJson json = new RunJson();

    /**
     * Writes {@code runDir/run.json}, creating {@code runDir} when missing.
     *
     * @throws IllegalArgumentException when the manifest's schema is not {@link RunManifest#SCHEMA}
     */
    public Path write(Path runDir, RunManifest manifest) throws IOException {
        if (!RunManifest.SCHEMA.equals(manifest.schema())) {
            throw new IllegalArgumentException("run manifest schema must be " + RunManifest.SCHEMA
                    + ", was " + manifest.schema());
        }
        Files.createDirectories(runDir);
        Path target = runDir.resolve(RunManifest.FILE_NAME);
        AtomicFile.write(target, json.toBytes(manifest));
        return target;
    }

    /** The bytes that {@link #write} would write, for callers that keep the text elsewhere. */
    public byte[] toBytes(RunManifest manifest) {
        return json.toBytes(manifest);
    }
}

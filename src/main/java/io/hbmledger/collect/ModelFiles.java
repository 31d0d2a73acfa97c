package io.hbmledger.collect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Saves what a checkpoint says about its memory without its weights: config.json as it is, and the
 * header of every *.safetensors file (the 8-byte little-endian length, then that many bytes of JSON
 * naming each tensor's dtype, shape and byte offsets). No tensor data is read.
 */
final class ModelFiles {

    /** Largest header we accept; real ones are a few MB at most (safetensors caps them at 100 MB). */
    static final long MAX_HEADER = 100L * 1024 * 1024;

    private ModelFiles() {
    }

    /** Saves into {@code <run>/model/}; returns the relative paths written. Missing files are simply skipped. */
    static List<String> save(Host host, String modelDir, RunJournal journal, Redactor redactor) throws IOException {
        List<String> written = new ArrayList<>();
        Path runDir = journal.runDir();
        String taken = RunJournal.now();
        List<String> configs = host.listFiles(modelDir, "config.json");
        for (String c : configs) {
            String name = Path.of(c).getFileName().toString();
            if (!name.equals("config.json")) {
                continue;
            }
            byte[] bytes = host.head(c, 16L * 1024 * 1024);
            AtomicFiles.write(runDir.resolve("model/config.json"), bytes);
            journal.evidence("model/config.json", "static", taken, "copy of " + redactor.text(c));
            written.add("model/config.json");
        }
        for (String st : host.listFiles(modelDir, ".safetensors")) {
            String name = Path.of(st).getFileName().toString();
            byte[] len = host.head(st, 8);
            if (len.length < 8) {
                journal.reason("safetensors file " + name + " is shorter than its 8-byte header length");
                continue;
            }
            long n = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (n <= 0 || n > MAX_HEADER) {
                journal.reason("safetensors file " + name + " declares a header of " + n + " bytes; not saved");
                continue;
            }
            byte[] all = host.head(st, 8 + n);
            if (all.length < 8 + n) {
                journal.reason("safetensors file " + name + " ends inside its header");
                continue;
            }
            byte[] header = java.util.Arrays.copyOfRange(all, 8, (int) (8 + n));
            String rel = "model/safetensors-headers/" + name + ".header.json";
            AtomicFiles.write(runDir.resolve(rel), header);
            journal.evidence(rel, "static", taken,
                    "raw safetensors header JSON of " + name + " (bytes 8.." + (8 + n) + "; weights not copied)",
                    java.util.Map.of("header_of", name));
            written.add(rel);
        }
        for (String idx : host.listFiles(modelDir, ".safetensors.index.json")) {
            String name = Path.of(idx).getFileName().toString();
            byte[] bytes = host.head(idx, 64L * 1024 * 1024);
            String rel = "model/" + name;
            AtomicFiles.write(runDir.resolve(rel), bytes);
            journal.evidence(rel, "static", taken, "copy of the checkpoint's tensor index");
            written.add(rel);
        }
        return written;
    }
}

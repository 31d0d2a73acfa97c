package io.hbmledger.collect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hbmledger.run.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Saves what a checkpoint says about its memory without its weights: config.json as it is, the
 * header of every *.safetensors file (the 8-byte little-endian length N, then N bytes of JSON
 * naming each tensor's dtype, shape and byte offsets; no tensor data is read), and from those a
 * weights manifest in the format of the weights verb (docs/readme-weights.md,
 * "hbm-ledger/weights-manifest/1"). Only the manifest and config.json go into the evidence list;
 * the raw headers are kept beside it, byte for byte, for audit.
 */
final class ModelFiles {

    static final String MANIFEST_SCHEMA = "hbm-ledger/weights-manifest/1";
    /** Largest header accepted: the safetensors reference implementation's cap. */
    static final long MAX_HEADER = 100_000_000L;

    private ModelFiles() {
    }

    /** Saves into {@code <run>/model/}; returns the relative paths put in the evidence list. */
    static List<String> save(Host host, String modelDir, RunJournal journal, Redactor redactor) throws IOException {
        List<String> listed = new ArrayList<>();
        Path runDir = journal.runDir();
        String taken = RunJournal.now();
        ObjectNode manifest = Json.MAPPER.createObjectNode();
        manifest.put("schema", MANIFEST_SCHEMA);
        manifest.put("model_dir", redactor.text(modelDir));
        ArrayNode files = manifest.putArray("files");
        ArrayNode lfs = manifest.putArray("lfs_pointers");

        String config = host.listFiles(modelDir, "config.json").stream()
                .filter(f -> Path.of(f).getFileName().toString().equals("config.json")).findFirst().orElse(null);
        if (config != null) {
            byte[] bytes = host.head(config, 16L * 1024 * 1024);
            AtomicFile.writeCreatingParents(runDir.resolve("model/config.json"), bytes);
            journal.evidence("model/config.json", "static", taken, "copy of " + redactor.text(config));
            listed.add("model/config.json");
            try {
                manifest.set("config", Json.MAPPER.readTree(bytes));
            } catch (IOException notJson) {
                journal.reason("config.json of the model is not valid JSON: " + notJson.getMessage());
            }
        }
        for (String st : host.listFiles(modelDir, ".safetensors")) {
            String name = Path.of(st).getFileName().toString();
            byte[] start = host.head(st, 1024);
            String text = new String(start, StandardCharsets.ISO_8859_1);
            if (text.startsWith("version https://git-lfs")) {
                ObjectNode p = lfs.addObject();
                p.put("name", name);
                for (String line : text.split("\n")) {
                    if (line.startsWith("size ")) {
                        p.put("size", Long.parseLong(line.substring(5).strip()));
                    }
                }
                journal.reason("safetensors file " + name + " is a Git LFS pointer, not the weights (run 'git lfs pull'?)");
                continue;
            }
            if (start.length < 8) {
                journal.reason("safetensors file " + name + " is shorter than its 8-byte header length");
                continue;
            }
            long n = ByteBuffer.wrap(start, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (n <= 0 || n > MAX_HEADER) {
                journal.reason("safetensors file " + name + " declares a header of " + n + " bytes; not saved");
                continue;
            }
            byte[] all = host.head(st, 8 + n);
            if (all.length < 8 + n) {
                journal.reason("safetensors file " + name + " ends inside its header");
                continue;
            }
            byte[] header = Arrays.copyOfRange(all, 8, (int) (8 + n));
            AtomicFile.writeCreatingParents(runDir.resolve("model/safetensors-headers/" + name + ".header.json"), header);
            JsonNode h;
            try {
                h = Json.MAPPER.readTree(header);
            } catch (IOException bad) {
                journal.reason("safetensors file " + name + ": header is not JSON (" + bad.getMessage() + ")");
                continue;
            }
            ObjectNode f = files.addObject();
            f.put("name", name);
            f.put("size", host.size(st));
            f.put("header_bytes", n);
            ArrayNode tensors = f.putArray("tensors");
            for (Map.Entry<String, JsonNode> t : h.properties()) {
                if (t.getKey().equals("__metadata__")) {
                    continue;
                }
                ObjectNode tn = tensors.addObject();
                tn.put("name", t.getKey());
                tn.set("dtype", t.getValue().get("dtype"));
                tn.set("shape", t.getValue().get("shape"));
                tn.set("data_offsets", t.getValue().get("data_offsets"));
            }
        }
        for (String idx : host.listFiles(modelDir, ".safetensors.index.json")) {
            try {
                JsonNode ix = Json.MAPPER.readTree(host.head(idx, 64L * 1024 * 1024));
                ObjectNode out = manifest.putObject("index");
                out.put("name", Path.of(idx).getFileName().toString());
                JsonNode total = ix.path("metadata").path("total_size");
                if (total.isNumber()) {
                    out.put("total_size", total.asLong());
                }
                ArrayNode names = out.putArray("tensors");
                Set<String> shards = new LinkedHashSet<>();
                for (Map.Entry<String, JsonNode> e : ix.path("weight_map").properties()) {
                    names.add(e.getKey());
                    shards.add(e.getValue().asText());
                }
                ArrayNode sh = out.putArray("shards");
                shards.forEach(sh::add);
            } catch (IOException bad) {
                journal.reason("index " + Path.of(idx).getFileName() + " is not JSON: " + bad.getMessage());
            }
        }
        if (files.size() > 0 || lfs.size() > 0 || manifest.has("index")) {
            AtomicFile.writeCreatingParents(runDir.resolve("model/weights-manifest.json"), Json.MAPPER.writeValueAsBytes(manifest));
            journal.evidence("model/weights-manifest.json", "static", taken, "safetensors headers of " + files.size()
                    + " file(s) in " + MANIFEST_SCHEMA + " format (no weights copied; raw headers in model/safetensors-headers/)");
            listed.add("model/weights-manifest.json");
        }
        return listed;
    }
}

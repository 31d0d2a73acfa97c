package io.hbmledger.evidence.safetensors;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.Quote;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes a {@link CheckpointManifest} as JSON, schema {@value #SCHEMA}:
 *
 * <pre>{@code
 * {"schema": "hbm-ledger/weights-manifest/1",
 *  "model_dir": "/models/Qwen2.5-14B-Instruct",
 *  "files": [{"name": "model-00001-of-00006.safetensors", "size": 3945..., "header_bytes": 12345,
 *             "tensors": [{"name": "model.embed_tokens.weight", "dtype": "BF16",
 *                          "shape": [152064, 5120], "data_offsets": [0, 1557135360]}]}],
 *  "lfs_pointers": [{"name": "model-00002-of-00006.safetensors", "size": 3864...}],
 *  "index": {"name": "model.safetensors.index.json", "total_size": 29540067328,
 *            "tensors": ["lm_head.weight", ...], "shards": ["model-00001-of-00006.safetensors", ...]},
 *  "config": {... config.json verbatim ...}}
 * }</pre>
 * Sizes are bytes; offsets are relative to the data section, as in the safetensors header.
 * No tensor data is ever stored.
 */
public final class ManifestJson {

    public static final String SCHEMA = "hbm-ledger/weights-manifest/1";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ManifestJson() {
    }

    public static void write(CheckpointManifest m, Writer out) throws IOException {
        try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("schema", SCHEMA);
            g.writeStringField("model_dir", m.modelDir());
            g.writeArrayFieldStart("files");
            for (CheckpointManifest.File f : m.files()) {
                g.writeStartObject();
                g.writeStringField("name", f.name());
                g.writeNumberField("size", f.size());
                g.writeNumberField("header_bytes", f.headerBytes());
                g.writeArrayFieldStart("tensors");
                for (SafetensorsTensor t : f.tensors()) {
                    g.writeStartObject();
                    g.writeStringField("name", t.name());
                    g.writeStringField("dtype", t.dtype().name());
                    g.writeArrayFieldStart("shape");
                    for (long d : t.shape()) {
                        g.writeNumber(d);
                    }
                    g.writeEndArray();
                    g.writeArrayFieldStart("data_offsets");
                    g.writeNumber(t.begin());
                    g.writeNumber(t.end());
                    g.writeEndArray();
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("lfs_pointers");
            for (CheckpointManifest.LfsFile l : m.lfsPointers()) {
                g.writeStartObject();
                g.writeStringField("name", l.name());
                g.writeNumberField("size", l.size());
                g.writeEndObject();
            }
            g.writeEndArray();
            if (m.index() != null) {
                g.writeObjectFieldStart("index");
                g.writeStringField("name", m.index().name());
                if (m.index().totalSize() != null) {
                    g.writeNumberField("total_size", m.index().totalSize());
                }
                g.writeArrayFieldStart("tensors");
                for (String s : m.index().tensorNames()) {
                    g.writeString(s);
                }
                g.writeEndArray();
                g.writeArrayFieldStart("shards");
                for (String s : m.index().shards()) {
                    g.writeString(s);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            if (m.configJson() != null) {
                g.writeFieldName("config");
                g.writeTree(JSON.readTree(m.configJson()));
            }
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    /**
     * @throws EvidenceException when the text is not a manifest of this schema
     */
    public static CheckpointManifest read(String display, String text) throws EvidenceException {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new EvidenceException(display, e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                    "not valid JSON (" + e.getOriginalMessage() + "); expected a weights manifest (" + SCHEMA + ")");
        }
        if (root == null || !root.isObject() || !SCHEMA.equals(root.path("schema").asText())) {
            throw new EvidenceException(display, 1, "expected \"schema\": \"" + SCHEMA + "\", found "
                    + (root != null && root.has("schema") ? Quote.cut(root.get("schema").toString()) : "none"));
        }
        List<CheckpointManifest.File> files = new ArrayList<>();
        if (root.has("files") && !root.get("files").isArray()) {
            throw new EvidenceException(display, 0, "expected \"files\" to be an array, found " + root.get("files").getNodeType());
        }
        for (JsonNode f : root.path("files")) {
            String fname = f.path("name").asText();
            if (!f.path("tensors").isArray()) {
                throw new EvidenceException(display, 0, "file " + Quote.doubleQuoted(fname) + ": expected a \"tensors\" array, found "
                        + (f.has("tensors") ? f.get("tensors").getNodeType() : "none"));
            }
            List<SafetensorsTensor> tensors = new ArrayList<>();
            for (JsonNode t : f.path("tensors")) {
                try {
                    // the same checks as a header read from the file: dtype known, shape x dtype = offsets
                    tensors.add(SafetensorsHeader.tensor(display, t.path("name").asText(), t, Long.MAX_VALUE));
                } catch (EvidenceException e) {
                    String msg = e.getMessage().substring(Math.min(e.getMessage().length(), display.length() + 2));
                    throw new EvidenceException(display, 0, "file " + Quote.doubleQuoted(fname) + ", " + msg);
                }
            }
            files.add(new CheckpointManifest.File(fname, f.path("size").asLong(), f.path("header_bytes").asLong(), tensors));
        }
        List<CheckpointManifest.LfsFile> lfs = new ArrayList<>();
        for (JsonNode l : root.path("lfs_pointers")) {
            lfs.add(new CheckpointManifest.LfsFile(l.path("name").asText(), l.path("size").asLong()));
        }
        CheckpointManifest.Index index = null;
        JsonNode ix = root.path("index");
        if (ix.isObject()) {
            List<String> names = new ArrayList<>();
            ix.path("tensors").forEach(n -> names.add(n.asText()));
            List<String> shards = new ArrayList<>();
            ix.path("shards").forEach(n -> shards.add(n.asText()));
            index = new CheckpointManifest.Index(ix.path("name").asText(),
                    ix.path("total_size").isNumber() ? ix.get("total_size").asLong() : null, names, shards);
        }
        String config = root.path("config").isObject() ? root.get("config").toPrettyString() : null;
        return new CheckpointManifest(root.path("model_dir").asText(null), files, lfs, index, config);
    }
}

package io.hbmledger.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.safetensors.CheckpointManifest;
import io.hbmledger.evidence.safetensors.ManifestJson;
import io.hbmledger.evidence.safetensors.ModelDirectory;
import io.hbmledger.evidence.safetensors.SafetensorsWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tiny two-shard Llama written with the test writer: the exact (headers) path end to end. */
class CheckpointHeadersTest {

    @TempDir
    Path dir;

    static final String CONFIG = """
            {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2,
             "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
             "vocab_size": 100, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}
            """;

    // BF16 sizes by hand: embed/lm_head 100 x 64 x 2 = 12800; q, o 64 x 64 x 2 = 8192; k, v 32 x 64 x 2 = 4096;
    // gate, up 128 x 64 x 2 = 16384, down 64 x 128 x 2 = 16384; norms 64 x 2 = 128.
    // Total 2 x 12800 + 2 x (2 x 8192 + 2 x 4096 + 3 x 16384 + 2 x 128) + 128 = 173,696.
    static final long TOTAL = 173_696;

    private static void layer(SafetensorsWriter w, int i) {
        String p = "model.layers." + i + ".";
        w.add(p + "input_layernorm.weight", "BF16", 128, 64)
                .add(p + "post_attention_layernorm.weight", "BF16", 128, 64)
                .add(p + "self_attn.q_proj.weight", "BF16", 8192, 64, 64)
                .add(p + "self_attn.k_proj.weight", "BF16", 4096, 32, 64)
                .add(p + "self_attn.v_proj.weight", "BF16", 4096, 32, 64)
                .add(p + "self_attn.o_proj.weight", "BF16", 8192, 64, 64)
                .add(p + "mlp.gate_proj.weight", "BF16", 16384, 128, 64)
                .add(p + "mlp.up_proj.weight", "BF16", 16384, 128, 64)
                .add(p + "mlp.down_proj.weight", "BF16", 16384, 64, 128);
    }

    @BeforeEach
    void writeModel() throws Exception {
        SafetensorsWriter s1 = new SafetensorsWriter().add("model.embed_tokens.weight", "BF16", 12800, 100, 64);
        layer(s1, 0);
        SafetensorsWriter s2 = new SafetensorsWriter();
        layer(s2, 1);
        s2.add("model.norm.weight", "BF16", 128, 64).add("lm_head.weight", "BF16", 12800, 100, 64);
        Files.write(dir.resolve("model-00001-of-00002.safetensors"), s1.build());
        Files.write(dir.resolve("model-00002-of-00002.safetensors"), s2.build());
        Files.writeString(dir.resolve("config.json"), CONFIG);
        StringBuilder idx = new StringBuilder("{\"metadata\": {\"total_size\": " + TOTAL + "}, \"weight_map\": {");
        String[] names = {"model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"};
        String[] files = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "model-00002-of-00002.safetensors"};
        for (int i = 0; i < names.length; i++) {
            idx.append(i == 0 ? "" : ",").append('"').append(names[i]).append("\": \"").append(files[i]).append('"');
        }
        for (int l = 0; l < 2; l++) {
            for (String t : new String[] {"input_layernorm", "post_attention_layernorm", "self_attn.q_proj", "self_attn.k_proj",
                "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}) {
                idx.append(",\"model.layers.").append(l).append('.').append(t).append(".weight\": \"model-0000").append(l + 1)
                        .append("-of-00002.safetensors\"");
            }
        }
        Files.writeString(dir.resolve("model.safetensors.index.json"), idx.append("}}").toString());
        // a stray consolidated file not in the index must not be counted
        Files.write(dir.resolve("consolidated.safetensors"), new SafetensorsWriter().add("x", "F32", 400, 100).build());
    }

    @Test
    void exactTotalsFromHeadersAndPerDeviceShareAtTp2() throws Exception {
        Checkpoint c = Checkpoint.from(ModelDirectory.scan(dir));
        assertThat(c.source()).isEqualTo(Checkpoint.Source.HEADERS);
        assertThat(c.totalBytes()).isEqualTo(TOTAL);
        assertThat(c.notes()).contains("tensor names match the index's weight_map (21 tensors)", "total 173696 bytes equals the index's total_size");
        WeightsPlan p = WeightsPlanner.plan(c, ParallelLayout.tp(2), PlanOptions.defaults());
        // TP 2 by hand: embed, lm_head: 100 rows pad to 128, / 2 = 64 rows x 128 B = 8192 each;
        // per layer q 4096 + k 2048 + v 2048 + o 4096 + 3 x 8192 + norms 256 = 37,120, x 2 = 74,240; final norm 128.
        assertThat(p.perDeviceBytes()).isEqualTo(2 * 8192 + 74_240 + 128);
    }

    @Test
    void manifestRoundTripGivesTheSamePlan() throws Exception {
        CheckpointManifest m = ModelDirectory.scan(dir);
        StringWriter w = new StringWriter();
        ManifestJson.write(m, w);
        assertThat(w.toString()).contains("\"schema\" : \"hbm-ledger/weights-manifest/1\"").doesNotContain("consolidated");
        CheckpointManifest back = ManifestJson.read("manifest.json", w.toString());
        assertThat(back.files()).isEqualTo(m.files());
        assertThat(back.index()).isEqualTo(m.index());
        WeightsPlan a = WeightsPlanner.plan(Checkpoint.from(m), ParallelLayout.tp(2), PlanOptions.defaults());
        WeightsPlan b = WeightsPlanner.plan(Checkpoint.from(back), ParallelLayout.tp(2), PlanOptions.defaults());
        assertThat(b).isEqualTo(a);
    }

    @Test
    void lfsPointerShardFallsBackToTheConfigEstimate() throws Exception {
        Files.writeString(dir.resolve("model-00002-of-00002.safetensors"),
                "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 99999\n");
        Checkpoint c = Checkpoint.from(ModelDirectory.scan(dir));
        assertThat(c.source()).isEqualTo(Checkpoint.Source.CONFIG);
        assertThat(c.notes()).anyMatch(n -> n.startsWith("1 weights file(s) are Git LFS pointers (99999 bytes"));
        // the config estimate reproduces the same tensors, so the totals still agree
        assertThat(c.totalBytes()).isEqualTo(TOTAL);
        Files.delete(dir.resolve("config.json"));
        Checkpoint partial = Checkpoint.from(ModelDirectory.scan(dir));
        assertThat(partial.source()).isEqualTo(Checkpoint.Source.HEADERS);
        assertThat(partial.notes()).anyMatch(n -> n.contains("the total is incomplete"));
    }

    @Test
    void directoryWithoutWeightsSaysSo() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Files.writeString(empty.resolve("README.md"), "# nothing\n");
        assertThatThrownBy(() -> ModelDirectory.scan(empty))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("no weights here");
        Path lfsOnly = Files.createDirectories(dir.resolve("lfs"));
        Files.writeString(lfsOnly.resolve("model.safetensors"), "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 5\n");
        assertThatThrownBy(() -> Checkpoint.from(ModelDirectory.scan(lfsOnly)))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("only Git LFS pointers; run `git lfs pull`");
    }

    @Test
    void malformedShardNamesTheFile() throws Exception {
        Files.write(dir.resolve("model-00001-of-00002.safetensors"), SafetensorsWriter.file("[]", 0));
        assertThatThrownBy(() -> ModelDirectory.scan(dir))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("model-00001-of-00002.safetensors")
                .hasMessageContaining("not an object");
    }

    @Test
    void manifestOfAnotherSchemaIsRefused() {
        assertThatThrownBy(() -> ManifestJson.read("run/weights.json", "{\"schema\": \"hbm-ledger/evidence/1\"}"))
                .isInstanceOf(EvidenceException.class)
                .hasMessage("run/weights.json:1: expected \"schema\": \"hbm-ledger/weights-manifest/1\", found \"hbm-ledger/evidence/1\"");
        String backwards = "{\"schema\":\"hbm-ledger/weights-manifest/1\",\"files\":[{\"name\":\"a.safetensors\",\"size\":9,"
                + "\"header_bytes\":1,\"tensors\":[{\"name\":\"t\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[5,4]}]}]}";
        assertThatThrownBy(() -> ManifestJson.read("m.json", backwards)).hasMessageContaining("file \"a.safetensors\", tensor \"t\": data_offsets [5, 4] run backwards");
    }
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class WeightsCommandTest {

    @TempDir
    Path tmp;

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cl = Main.newCommandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private Path qwen() throws Exception {
        Path d = Files.createDirectories(tmp.resolve("sakura"));
        Files.createSymbolicLink(d.resolve("config.json"), Corpus.file("model-config/sakura-14b-qwen2.5.config.json"));
        Files.createSymbolicLink(d.resolve("model.safetensors.index.json"),
                Corpus.file("safetensors/sakura-14b-qwen2.5.model.safetensors.index.json"));
        return d;
    }

    @Test
    void jsonPerDeviceFigureAndManifest() throws Exception {
        Path manifest = tmp.resolve("weights-manifest.json");
        Run r = run("weights", qwen().toString(), "--tp", "4", "--format", "json", "--save-manifest", manifest.toString());
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.path("schema").asText()).isEqualTo("hbm-ledger/weights/1");
        // worked out by hand in WeightsPlannerTest.qwen25_14bPerDeviceShareAtTp4
        assertThat(j.path("per_device_bytes").asLong()).isEqualTo(7_385_761_792L);
        assertThat(j.path("total_confidence").asText()).isEqualTo("estimated");
        assertThat(j.path("kv_cache").path("bytes_per_token").asLong()).isEqualTo(196_608L);
        // the saved manifest reproduces the figure without the model directory
        Run again = run("weights", manifest.toString(), "--tp", "4", "--format", "json");
        assertThat(new ObjectMapper().readTree(again.out()).path("per_device_bytes").asLong()).isEqualTo(7_385_761_792L);
    }

    @Test
    void textTableNamesRulesAndUnits() throws Exception {
        Run r = run("weights", qwen().toString(), "--tp", "4");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("vocab-parallel, padded to 64", "column-parallel", "row-parallel", "replicated",
                "6.88 GiB (7385761792 B)", "estimated");
    }

    @Test
    void emptyDirectoryExitsTwo() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Run r = run("weights", empty.toString(), "--tp", "2");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("no weights here");
    }

    @Test
    void singleSafetensorsFileIsSizedExactly() throws Exception {
        // the corpus PEFT adapter: 25 F32 tensors, 1,198,080 bytes (8 + 3120 + 1198080 = its file size)
        Run r = run("weights", Corpus.file("safetensors/peft-gpt2-lora.adapter_model.safetensors").toString(), "--format", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.path("checkpoint_bytes").asLong()).isEqualTo(1_198_080L);
        assertThat(j.path("total_confidence").asText()).isEqualTo("exact");
        // its tensor names hold lora_A / lora_B: an adapter, not base-model weights
        assertThat(j.path("notes").toString()).contains("LoRA adapter tensors");
    }

    @Test
    void lfsPointerInsteadOfWeightsExitsTwo() throws Exception {
        Run r = run("weights", Corpus.file("safetensors/qwen3-14b-lora.adapter_model.safetensors.git-lfs-pointer.txt").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("a Git LFS pointer, not the weights", "git lfs pull");
    }

    // ---- every unusable input: a clear error naming the file (and line), exit 2, no output, no manifest ----

    /** Exit 2, nothing on stdout, no manifest written, the named file in the message, no stack trace. */
    private Run refused(Path saved, String... args) {
        Run r = run(args);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("hbm-ledger: ").doesNotContain("Exception:", "\tat ");
        assertThat(saved).doesNotExist();
        assertThat(saved.resolveSibling(saved.getFileName() + ".tmp")).doesNotExist();
        return r;
    }

    @Test
    void binaryFileIsRefusedNamingTheFile() throws Exception {
        // seeded bytes with 0xFF (never valid in UTF-8) first, then 0xC3 0x28 (an invalid 2-byte sequence)
        byte[] b = new byte[4096];
        new java.util.Random(11).nextBytes(b);
        b[0] = (byte) 0xFF;
        Path bin = Files.write(tmp.resolve("bin.dat"), b);
        Path saved = tmp.resolve("m.json");
        Run r = refused(saved, "weights", bin.toString(), "--save-manifest", saved.toString());
        assertThat(r.err()).contains(bin.toString()).containsAnyOf("not UTF-8", "not JSON", "binary");
    }

    @Test
    void textThatIsNotJsonIsRefusedWithItsLine() throws Exception {
        Path txt = Files.writeString(tmp.resolve("notes.txt"), "NPU memory notes\nline two\n");
        Run r = refused(tmp.resolve("m.json"), "weights", txt.toString());
        assertThat(r.err()).contains(txt + ":1:", "not JSON");
    }

    @Test
    void brokenJsonIsRefusedWithTheLineOfTheFault() throws Exception {
        // the value of "files" is missing: Jackson stops at the '}' on line 3
        Path j = Files.writeString(tmp.resolve("manifest.json"), "{\"schema\": \"hbm-ledger/weights-manifest/1\",\n \"files\":\n}\n");
        Run r = refused(tmp.resolve("m.json"), "weights", j.toString());
        assertThat(r.err()).contains(j + ":3:", "not valid JSON");
    }

    @Test
    void binaryConfigJsonInADirectoryIsRefusedNamingIt() throws Exception {
        Path d = Files.createDirectories(tmp.resolve("model"));
        // "{\n" then 0xC3 0x28: invalid UTF-8 at byte 2, on line 2
        Files.write(d.resolve("config.json"), new byte[] {'{', '\n', (byte) 0xC3, 0x28, '}'});
        Run r = refused(tmp.resolve("m.json"), "weights", d.toString());
        assertThat(r.err()).contains(d.resolve("config.json") + ":2:", "not UTF-8");
    }

    @Test
    void directoryWithoutWeightsIsRefused() throws Exception {
        Path d = Files.createDirectories(tmp.resolve("docs-only"));
        Files.writeString(d.resolve("README.md"), "# a model card, no weights\n");
        Run r = refused(tmp.resolve("m.json"), "weights", d.toString());
        assertThat(r.err()).contains(d.toString(), "no weights here");
    }

    @Test
    void zipCheckpointIsNamedAsNotSafetensors() throws Exception {
        Path zip = tmp.resolve("pytorch_model.bin");
        try (var z = new java.util.zip.ZipOutputStream(Files.newOutputStream(zip))) {
            z.putNextEntry(new java.util.zip.ZipEntry("archive/data.pkl"));
            z.write(new byte[] {(byte) 0x80, 2});
            z.closeEntry();
        }
        Run r = refused(tmp.resolve("m.json"), "weights", zip.toString());
        assertThat(r.err()).contains(zip.toString(), "zip", "safetensors");
    }

    @Test
    void unreadableDirectoryIsRefused() throws Exception {
        Path d = Files.createDirectories(tmp.resolve("locked"));
        Files.createSymbolicLink(d.resolve("config.json"), Corpus.file("model-config/sakura-14b-qwen2.5.config.json"));
        Files.setPosixFilePermissions(d, java.util.Set.of());
        try {
            // root reads anything: the fault cannot be made here
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(d), "running as root");
            Run r = refused(tmp.resolve("m.json"), "weights", d.toString());
            assertThat(r.err()).contains("locked", "permission denied");
        } finally {
            Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void manifestIntoAMissingDirectoryIsRefusedWithNoOutput() throws Exception {
        Path saved = tmp.resolve("no-such-dir").resolve("m.json");
        Run r = refused(saved, "weights", qwen().toString(), "--tp", "4", "--save-manifest", saved.toString());
        assertThat(r.err()).contains(saved.toString(), "cannot write");
    }

    @Test
    void unknownDtypeOptionIsRefused() throws Exception {
        Path q = qwen();
        Run r = refused(tmp.resolve("m.json"), "weights", q.toString(), "--dtype", "fp7");
        assertThat(r.err()).contains("--dtype fp7");
        Run k = refused(tmp.resolve("m.json"), "weights", q.toString(), "--kv-cache-dtype", "int3");
        assertThat(k.err()).contains("--kv-cache-dtype int3");
    }

    @Test
    void configJsonAloneGivesTheSameEstimateAsItsDirectory() throws Exception {
        // sakura config alone: the Qwen2.5-14B shapes give 29540067328 B (= the index's total_size, see qwen())
        Run r = run("weights", Corpus.file("model-config/sakura-14b-qwen2.5.config.json").toString(), "--tp", "4", "--format", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.path("checkpoint_bytes").asLong()).isEqualTo(29_540_067_328L);
        assertThat(j.path("per_device_bytes").asLong()).isEqualTo(7_385_761_792L);
    }

    @Test
    void indexAloneAsksForTheDirectory() throws Exception {
        Path idx = Corpus.file("safetensors/sakura-14b-qwen2.5.model.safetensors.index.json");
        Run r = refused(tmp.resolve("m.json"), "weights", idx.toString());
        assertThat(r.err()).contains(idx.toString(), "index", "pass the model directory");
    }

    @Test
    void fp8CheckpointHeaderAndColumnNameTheDtypes() throws Exception {
        Path d = Files.createDirectories(tmp.resolve("r1"));
        Files.createSymbolicLink(d.resolve("config.json"), Corpus.file("model-config/deepseek-r1_DeepseekV3ForCausalLM.config.json"));
        Run r = run("weights", d.toString(), "--tp", "16");
        assertThat(r.code()).as(r.err()).isZero();
        String header = r.out().lines().filter(l -> l.startsWith("layout")).findFirst().orElseThrow();
        assertThat(header).contains("bfloat16", "F8_E4M3 weights as stored");
        assertThat(r.out()).contains("dtype stored -> served", "40.18 GiB (43139382208 B)");
        Run bf16 = run("weights", d.toString(), "--tp", "16", "--fp8-weights", "bf16", "--format", "json");
        assertThat(bf16.code()).as(bf16.err()).isZero();
        // worked out in WeightsPlannerTest.deepSeekR1Fp8ConvertedToBf16DoublesTheFp8SharesAndDropsTheScales
        assertThat(new ObjectMapper().readTree(bf16.out()).path("per_device_bytes").asLong()).isEqualTo(85_811_306_496L);
        refused(tmp.resolve("m.json"), "weights", d.toString(), "--fp8-weights", "fp4");
    }

    @Test
    void manifestWhoseOffsetsDisagreeWithTheShapeCountsTheOffsetsAndSaysSo() throws Exception {
        // BF16 [4, 4] needs 4 x 4 x 2 = 32 bytes; the offsets give 16, which is what the file holds
        Path m = Files.writeString(tmp.resolve("edited.json"), "{\"schema\": \"hbm-ledger/weights-manifest/1\", \"files\": [{\"name\": "
                + "\"model.safetensors\", \"size\": 100, \"header_bytes\": 60, \"tensors\": [{\"name\": \"w\", \"dtype\": \"BF16\", "
                + "\"shape\": [4, 4], \"data_offsets\": [0, 16]}]}]}\n");
        Run r = run("weights", m.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("model.safetensors: tensor \"w\"", "needs 32 bytes", "(16 B)");
    }
}

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
    }

    @Test
    void lfsPointerInsteadOfWeightsExitsTwo() throws Exception {
        Run r = run("weights", Corpus.file("safetensors/qwen3-14b-lora.adapter_model.safetensors.git-lfs-pointer.txt").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("a Git LFS pointer, not the weights", "git lfs pull");
    }
}

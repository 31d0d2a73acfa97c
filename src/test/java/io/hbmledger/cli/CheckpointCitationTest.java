package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hbmledger.evidence.safetensors.SafetensorsWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint lines cite their files like every other ledger line: {@code file:line "text"} where
 * the text is on that line of that file, and the file is named relative to the run directory,
 * so that a run directory copied elsewhere gives the same ledger. The run is the bundled A3
 * example (vllm-ascend issue 2667) plus a model directory: the simulated demo's config.json
 * (a Llama-3.1-8B shape, in the repository) and, in the second test, a safetensors file written
 * by the test.
 */
class CheckpointCitationTest {

    private final ObjectMapper mapper = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path run(String name, String modelDir, String extraEvidence) throws Exception {
        Path run = Files.createDirectories(tmp.resolve(name));
        Path example = Path.of("examples", "a3-llama3.1-8b-eagle3");
        Files.createDirectories(run.resolve("evidence"));
        for (String f : List.of("npu-smi-idle.txt", "vllm-startup.log")) {
            Files.copy(example.resolve("evidence").resolve(f), run.resolve("evidence").resolve(f));
        }
        Files.createDirectories(run.resolve("model"));
        Files.copy(Path.of("examples", "simulated-collect", "model", "config.json"), run.resolve("model/config.json"));
        ObjectNode rj = (ObjectNode) mapper.readTree(example.resolve("run.json").toFile());
        if (modelDir != null) {
            ((ObjectNode) rj.get("deployment")).put("model_dir", modelDir);
        }
        if (extraEvidence != null) {
            ((com.fasterxml.jackson.databind.node.ArrayNode) rj.get("evidence")).addObject()
                    .put("file", extraEvidence).put("moment", "static");
        }
        Files.writeString(run.resolve("run.json"), mapper.writeValueAsString(rj));
        return run;
    }

    private JsonNode analyze(Path run) throws Exception {
        CliRun r = CliRun.of("analyze", run.toAbsolutePath().toString(), "--format", "json", "--no-write");
        assertThat(r.exit()).as(r.err()).isZero();
        return mapper.readTree(r.out());
    }

    /** Every {file, line, text} object in the report. */
    private static void sources(JsonNode n, List<JsonNode> out) {
        if (n.isObject() && n.has("file") && n.has("line") && n.has("text")) {
            out.add(n);
        }
        n.forEach(c -> sources(c, out));
    }

    private static List<JsonNode> checkpointSources(JsonNode report) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode d : report.get("devices")) {
            for (JsonNode e : d.get("entries")) {
                if (e.get("component").asText().startsWith("weights_checkpoint")) {
                    sources(e, out);
                }
            }
        }
        return out;
    }

    /** The file's line {@code n} (1-based, LF-separated) as bytes read as ISO-8859-1, so binary files compare too. */
    private static String line(Path file, int n) throws Exception {
        String all = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        return all.split("\n", -1)[n - 1];
    }

    private static String latin1(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** Every text source of the report names a file of the run, relative to it, and its quote is on the line cited. */
    private static void assertEveryQuoteIsOnItsLine(Path run, JsonNode report) throws Exception {
        List<JsonNode> all = new ArrayList<>();
        sources(report.get("devices"), all);
        assertThat(all).isNotEmpty();
        for (JsonNode s : all) {
            String file = s.get("file").asText();
            assertThat(Path.of(file).isAbsolute()).as(s.toString()).isFalse();
            if (s.has("data_row") || s.get("text").isNull()) {
                continue;
            }
            assertThat(line(run.resolve(file), s.get("line").asInt())).as(s.toString())
                    .contains(latin1(s.get("text").asText()));
        }
    }

    @Test
    void aModelDirsConfigIsCitedByTheLinesOfItsSizingKeysRelativeToTheRun() throws Exception {
        Path run = run("run", "model", null);
        JsonNode r = analyze(run);
        List<JsonNode> ck = checkpointSources(r);
        // config.json line 5 is '  "hidden_size": 4096,' (the file's own layout), line 7 the layers
        assertThat(ck).isNotEmpty();
        assertThat(ck.get(0).get("file").asText()).isEqualTo("model/config.json");
        assertThat(ck.get(0).get("line").asInt()).isEqualTo(5);
        assertThat(ck.get(0).get("text").asText()).isEqualTo("\"hidden_size\": 4096");
        assertThat(ck).anySatisfy(s -> {
            assertThat(s.get("line").asInt()).isEqualTo(7);
            assertThat(s.get("text").asText()).isEqualTo("\"num_hidden_layers\": 32");
        });
        assertEveryQuoteIsOnItsLine(run, r);
        // notes name the checkpoint as run.json does, not by where the run lies today
        assertThat(r.get("devices").toString()).doesNotContain(tmp.toString());

        // the same run directory elsewhere: the same devices, to the byte
        Path copy = run("elsewhere/deeper/run", "model", null);
        assertThat(analyze(copy).get("devices")).isEqualTo(r.get("devices"));
    }

    @Test
    void looseConfigAndSafetensorsAmongTheEvidenceAreCitedWhereTheirTextIs() throws Exception {
        Path run = run("loose", null, "model/config.json");
        // a one-tensor safetensors file: header '{"lm_head.weight":{"dtype":"BF16","shape":[2,4],...'
        Files.write(run.resolve("model/model.safetensors"),
                new SafetensorsWriter().add("lm_head.weight", "BF16", 16, 2, 4).build());
        ObjectNode rj = (ObjectNode) mapper.readTree(run.resolve("run.json").toFile());
        ((com.fasterxml.jackson.databind.node.ArrayNode) rj.get("evidence")).addObject()
                .put("file", "model/model.safetensors").put("moment", "static");
        Files.writeString(run.resolve("run.json"), mapper.writeValueAsString(rj));
        JsonNode r = analyze(run);
        List<JsonNode> ck = checkpointSources(r);
        assertThat(ck).anySatisfy(s -> {
            assertThat(s.get("file").asText()).isEqualTo("model/model.safetensors");
            assertThat(s.get("line").asInt()).isEqualTo(1);
            assertThat(s.get("text").asText()).startsWith("{\"lm_head.weight\":{\"dtype\":\"BF16\"");
        });
        assertThat(ck).anySatisfy(s -> assertThat(s.get("file").asText()).isEqualTo("model/config.json"));
        assertEveryQuoteIsOnItsLine(run, r);
    }
}

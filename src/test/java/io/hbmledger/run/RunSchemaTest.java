package io.hbmledger.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.hbmledger.run.RunManifest.Deployment;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The examples' run.json files and the writer's output follow docs/run.schema.json. */
class RunSchemaTest {

    private static Schema schema() throws Exception {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(Path.of("docs/run.schema.json")), InputFormat.JSON);
    }

    @Test
    void examplesValidate() throws Exception {
        Schema s = schema();
        for (String ex : List.of("a3-llama3.1-8b-eagle3", "910b2c-deepseek-r1-tp16-oom")) {
            String json = Files.readString(Path.of("examples", ex, "run.json"));
            assertThat(s.validate(json, InputFormat.JSON)).as(ex).isEmpty();
            // and the reader accepts them
            assertThat(RunDirectory.open(Path.of("examples", ex)).manifest().evidence()).hasSize(2);
        }
    }

    @Test
    void writerOutputValidatesAndABadMomentDoesNot() throws Exception {
        Schema s = schema();
        RunManifest m = RunManifest.of(Deployment.of("m", 2, 1, List.of(4, 5)),
                List.of(EvidenceEntry.of("evidence/a.txt", "ready").withRank(0)));
        String json = new String(new RunManifestWriter().toBytes(m), StandardCharsets.UTF_8);
        assertThat(s.validate(json, InputFormat.JSON)).isEmpty();
        assertThat(s.validate(json.replace("\"ready\"", "\"noon\""), InputFormat.JSON)).isNotEmpty();
    }
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** plan and diff JSON validate against docs/plan.schema.json and docs/diff.schema.json, and the schemas can fail. */
class PlanDiffSchemaTest {

    private static Schema schema(String file) throws Exception {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(Path.of("docs", file)), InputFormat.JSON);
    }

    @Test
    void planAndDiffOutputValidate() throws Exception {
        CliRun plan = CliRun.of("plan", "examples/simulated-collect/model/config.json", "--calibrate", "examples/a3-llama3.1-8b-eagle3",
                "--sweep", "max-model-len=128,4096", "--format", "json");
        assertThat(plan.exit()).as(plan.err()).isZero();
        assertThat(schema("plan.schema.json").validate(plan.out(), InputFormat.JSON)).isEmpty();
        CliRun diff = CliRun.of("diff", "examples/a3-llama3.1-8b-eagle3", "examples/910b2c-deepseek-r1-tp16-oom", "--format", "json");
        assertThat(diff.exit()).as(diff.err()).isZero();
        assertThat(schema("diff.schema.json").validate(diff.out(), InputFormat.JSON)).isEmpty();
        // the schemas can fail: a wrong schema name, a delta that is not a number
        assertThat(schema("plan.schema.json").validate(plan.out().replace("hbm-ledger/plan/1", "x"), InputFormat.JSON)).isNotEmpty();
        assertThat(schema("diff.schema.json").validate(diff.out().replaceFirst("\"delta_bytes\" : [-0-9]+", "\"delta_bytes\" : \"0\""),
                InputFormat.JSON)).isNotEmpty();
    }
}

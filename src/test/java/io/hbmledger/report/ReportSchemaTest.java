package io.hbmledger.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.hbmledger.ledger.Attribution;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.LedgerFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON report validates against docs/report.schema.json, and the schema can fail. */
class ReportSchemaTest {

    private final ObjectMapper mapper = new ObjectMapper();

    static Schema schema(String file) throws Exception {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        return registry.getSchema(Files.readString(Path.of("docs", file)), InputFormat.JSON);
    }

    private String json(EvidenceSet ev) throws Exception {
        return new LedgerJsonWriter().toJson(Attribution.standard().attribute(ev), ev.layout(), "run");
    }

    @Test
    void reportsOfBothFixturesValidate() throws Exception {
        Schema s = schema("report.schema.json");
        for (EvidenceSet ev : List.of(LedgerFixtures.a3(), LedgerFixtures.oom())) {
            String j = json(ev);
            List<Error> errors = s.validate(j, InputFormat.JSON);
            assertThat(errors).as(j).isEmpty();
        }
    }

    @Test
    void contractFieldsArePresentAndUnknownIsNull() throws Exception {
        JsonNode r = mapper.readTree(json(LedgerFixtures.a3()));
        assertThat(r.get("schema").asText()).isEqualTo("hbm-ledger/report/1");
        assertThat(r.get("status").asText()).isEqualTo("incomplete");
        JsonNode d = r.get("devices").get(0);
        assertThat(d.get("device").asText()).isEqualTo("npu:0/chip:0");
        assertThat(d.get("device_id").asInt()).isZero();
        assertThat(d.get("capacity_bytes").asLong()).isEqualTo(68719476736L);
        assertThat(d.get("used_bytes").isNull()).isTrue();
        assertThat(d.get("residual_bytes").isNull()).isTrue();
        JsonNode weights = d.get("entries").get(1);
        assertThat(weights.get("component").asText()).isEqualTo("weights");
        assertThat(weights.get("bytes").asLong()).isEqualTo(16948692569L);
        assertThat(weights.get("sources").get(0).get("line").asInt()).isEqualTo(46);
        assertThat(weights.get("sources").get(0).get("text").asText()).isEqualTo("15.7847 GB");
        for (JsonNode e : d.get("entries")) {
            if (e.get("confidence").asText().equals("unknown")) {
                assertThat(e.get("bytes").isNull()).as(e.toString()).isTrue();
            }
        }
        assertThat(r.get("process_level").isArray()).isTrue();
    }

    @Test
    void schemaRejectsAnUnknownLineWithBytesAndAWrongStatus() throws Exception {
        Schema s = schema("report.schema.json");
        ObjectNode r = (ObjectNode) mapper.readTree(json(LedgerFixtures.a3()));
        ObjectNode unknown = null;
        for (JsonNode e : r.get("devices").get(0).get("entries")) {
            if (e.get("confidence").asText().equals("unknown")) {
                unknown = (ObjectNode) e;
            }
        }
        unknown.put("bytes", 0);
        assertThat(s.validate(r.toString(), InputFormat.JSON)).isNotEmpty();
        ObjectNode r2 = (ObjectNode) mapper.readTree(json(LedgerFixtures.a3()));
        r2.put("status", "ok");
        assertThat(s.validate(r2.toString(), InputFormat.JSON)).isNotEmpty();
    }
}

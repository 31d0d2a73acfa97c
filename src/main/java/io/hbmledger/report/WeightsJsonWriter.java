package io.hbmledger.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.hbmledger.weights.ComponentShare;
import io.hbmledger.weights.KvCacheEstimate;
import io.hbmledger.weights.WeightsPlan;
import java.io.IOException;
import java.io.Writer;

/**
 * Writes a weights plan as JSON, schema {@value #SCHEMA}. All amounts are bytes. Totals carry
 * the confidence of their source ({@code exact} from headers, {@code estimated} from config);
 * per-device amounts are always {@code estimated}.
 */
public final class WeightsJsonWriter {

    public static final String SCHEMA = "hbm-ledger/weights/1";

    public void write(String modelDir, WeightsPlan p, Writer out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("schema", SCHEMA);
            g.writeStringField("model_dir", modelDir);
            g.writeStringField("source", p.source().what());
            g.writeStringField("total_confidence", p.source().confidence());
            g.writeStringField("per_device_confidence", "estimated");
            g.writeObjectFieldStart("layout");
            g.writeNumberField("tp", p.layout().tp());
            g.writeNumberField("dp", p.layout().dp());
            g.writeNumberField("pp", p.layout().pp());
            g.writeBooleanField("ep", p.layout().ep());
            g.writeEndObject();
            g.writeStringField("served_dtype", p.servedDtype());
            g.writeNumberField("checkpoint_bytes", p.checkpointBytes());
            g.writeNumberField("per_device_bytes", p.perDeviceBytes());
            g.writeNumberField("heaviest_stage", p.heaviestStage());
            if (p.mlaDerivedBytes() > 0) {
                g.writeNumberField("mla_derived_bytes", p.mlaDerivedBytes());
            }
            g.writeArrayFieldStart("stage_bytes");
            for (long s : p.stageBytes()) {
                g.writeNumber(s);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("components");
            for (ComponentShare c : p.components()) {
                g.writeStartObject();
                g.writeStringField("component", c.component().label());
                g.writeStringField("rule", c.rule().label());
                g.writeNumberField("tensors", c.tensors());
                g.writeNumberField("parameters", c.parameters());
                g.writeNumberField("total_bytes", c.totalBytes());
                g.writeNumberField("per_device_bytes", c.perDeviceBytes());
                g.writeStringField("formula", c.formula());
                if (c.storedDtype() != null) {
                    g.writeStringField("stored_dtype", c.storedDtype());
                }
                if (c.servedDtype() != null) {
                    g.writeStringField("served_dtype", c.servedDtype());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            KvCacheEstimate kv = p.kv();
            if (kv != null) {
                g.writeObjectFieldStart("kv_cache");
                g.writeStringField("confidence", "estimated");
                g.writeStringField("dtype", kv.dtype());
                g.writeNumberField("element_bytes", kv.elementBytes());
                g.writeNumberField("bytes_per_token", kv.bytesPerToken());
                g.writeNumberField("bytes_per_token_per_device", kv.bytesPerTokenPerDevice());
                g.writeNumberField("block_size", kv.blockSize());
                g.writeNumberField("bytes_per_block_per_device", kv.bytesPerBlockPerDevice());
                g.writeStringField("formula", kv.formula());
                g.writeEndObject();
            }
            g.writeArrayFieldStart("notes");
            for (String n : p.notes()) {
                g.writeString(n);
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }
}

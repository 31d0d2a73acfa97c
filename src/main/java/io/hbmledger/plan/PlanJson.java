package io.hbmledger.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hbmledger.ledger.Source;
import io.hbmledger.verdict.Figure;
import java.util.List;

/**
 * Plans and sweeps as JSON, schema {@value #SCHEMA} (docs/plan.schema.json). Bytes are bytes;
 * an unknown figure has {@code bytes} and {@code value} null and confidence {@code unknown}.
 */
public final class PlanJson {

    public static final String SCHEMA = "hbm-ledger/plan/1";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PlanJson() {
    }

    public static String write(Plan p, Sweep sweep) {
        ObjectNode root = JSON.createObjectNode();
        root.put("schema", SCHEMA);
        plan(root, p);
        if (sweep != null) {
            ObjectNode s = root.putObject("sweep");
            s.put("setting", sweep.setting());
            ArrayNode rows = s.putArray("rows");
            for (Sweep.Row r : sweep.rows()) {
                ObjectNode row = rows.addObject();
                row.put("value", r.value());
                plan(row.putObject("plan"), r.plan());
            }
        }
        try {
            return JSON.writeValueAsString(root) + System.lineSeparator();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void plan(ObjectNode o, Plan p) {
        o.put("model", p.model());
        o.put("device", p.device());
        ObjectNode l = o.putObject("layout");
        l.put("tp", p.layout().tp());
        l.put("dp", p.layout().dp());
        l.put("pp", p.layout().pp());
        l.put("ep", p.layout().ep());
        o.put("devices", p.devices());
        ObjectNode s = o.putObject("settings");
        PlanSettings st = p.settings();
        s.put("gpu_memory_utilization", st.utilization());
        s.put("max_model_len", st.maxModelLen());
        s.put("max_num_seqs", st.maxNumSeqs());
        s.put("max_num_batched_tokens", st.maxNumBatchedTokens());
        s.put("kv_cache_dtype", st.kvCacheDtype());
        s.put("dtype", st.dtype());
        s.put("enforce_eager", st.enforceEager());
        s.put("block_size", st.blockSize());
        s.put("co_tenant_bytes", st.coTenantBytes());
        o.put("engine", p.engine());
        o.put("calibrated_by", p.calibratedBy());
        ArrayNode lines = o.putArray("lines");
        for (NonKvLine n : p.lines()) {
            ObjectNode x = lines.addObject();
            x.put("component", n.component());
            x.put("bytes", n.bytes());
            x.put("confidence", n.confidence().jsonName());
            x.put("in_budget", n.inBudget());
            x.put("measured", n.measured());
            x.put("scaled", n.scaled());
            x.put("arithmetic", n.arithmetic());
            sources(x, n.sources());
        }
        figures(o.putArray("figures"), p.figures());
        figures(o.putArray("check"), p.check());
        ArrayNode notes = o.putArray("notes");
        p.notes().forEach(notes::add);
    }

    static void figures(ArrayNode a, List<Figure> figures) {
        for (Figure f : figures) {
            ObjectNode x = a.addObject();
            x.put("name", f.name());
            x.put("bytes", f.bytes());
            x.put("value", f.value());
            x.put("confidence", f.confidence().jsonName());
            x.put("arithmetic", f.arithmetic());
            sources(x, f.sources());
        }
    }

    static void sources(ObjectNode x, List<Source> sources) {
        ArrayNode a = x.putArray("sources");
        for (Source s : sources) {
            ObjectNode o = a.addObject();
            o.put("file", s.file());
            o.put("line", s.line());
            o.put("text", s.text());
        }
    }
}

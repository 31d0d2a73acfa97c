package io.hbmledger.settings;

import io.hbmledger.ledger.Source;
import io.hbmledger.run.RunManifest;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The settings run.json's {@code deployment} states (tp, dp, pp, gpu_memory_utilization,
 * kv_cache_dtype, model, and any other engine argument written there by name). Pure.
 */
public final class DeploymentSettings {

    private DeploymentSettings() {
    }

    /**
     * @param file run.json as cited
     * @param lines run.json's lines, to cite the line a key is on (0 when not found)
     */
    public static ServingSettings of(RunManifest.Deployment d, String file, List<String> lines) {
        Map<Setting, SettingValue> m = new EnumMap<>(Setting.class);
        if (d == null) {
            return ServingSettings.none();
        }
        put(m, Setting.TENSOR_PARALLEL_SIZE, "tp", d.tp(), file, lines);
        put(m, Setting.DATA_PARALLEL_SIZE, "dp", d.dp(), file, lines);
        put(m, Setting.PIPELINE_PARALLEL_SIZE, "pp", d.pp(), file, lines);
        put(m, Setting.GPU_MEMORY_UTILIZATION, "gpu_memory_utilization", d.gpuMemoryUtilization(), file, lines);
        put(m, Setting.KV_CACHE_DTYPE, "kv_cache_dtype", d.kvCacheDtype(), file, lines);
        put(m, Setting.MODEL, "model", d.model(), file, lines);
        for (Map.Entry<String, Object> e : d.extra().entrySet()) {
            Setting s = Setting.byKey(e.getKey());
            if (s != null && (e.getValue() instanceof String || e.getValue() instanceof Number || e.getValue() instanceof Boolean)) {
                put(m, s, e.getKey(), e.getValue(), file, lines);
            }
        }
        return new ServingSettings(m);
    }

    private static void put(Map<Setting, SettingValue> m, Setting s, String key, Object v, String file, List<String> lines) {
        if (v == null || m.containsKey(s)) {
            return;
        }
        String value = v instanceof Boolean b ? (b ? "True" : "False") : String.valueOf(v);
        int line = 0;
        String text = "\"" + key + "\": " + value;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("\"" + key + "\"")) {
                line = i + 1;
                // the line as written ("model" : "M",), not a form of it: a source quotes what the file says
                text = lines.get(i).strip().replaceFirst(",$", "");
                break;
            }
        }
        m.put(s, new SettingValue(value, new Source(file, line, text)));
    }
}

package io.hbmledger.diff;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.ledger.Source;
import io.hbmledger.settings.ServingSettings;
import io.hbmledger.settings.Setting;
import io.hbmledger.settings.SettingValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Delta confidences, unknown sides and device pairing, on hand-made sides. */
class DifferTest {

    private static Side side(String name, String util, Side.Device... devices) {
        Map<Setting, SettingValue> s = util == null ? Map.of()
                : Map.of(Setting.GPU_MEMORY_UTILIZATION, new SettingValue(util, new Source(name + "/run.json", 3, util)));
        return new Side(name, List.of(devices), new ServingSettings(s), 60L << 30, null);
    }

    private static Side.Device device(String key, Object... componentBytesConfidence) {
        Map<String, Side.Amount> m = new LinkedHashMap<>();
        for (int i = 0; i < componentBytesConfidence.length; i += 3) {
            m.put((String) componentBytesConfidence[i], new Side.Amount((Long) componentBytesConfidence[i + 1],
                    (String) componentBytesConfidence[i + 2], null));
        }
        return new Side.Device(key, 0, m);
    }

    private static Diff.Row row(Diff d, String component) {
        return d.devices().get(0).rows().stream().filter(r -> r.component().equals(component)).findFirst().orElseThrow();
    }

    @Test
    void measuredMinusMeasuredIsMeasuredMixedSaysSoUnknownStaysUnknown() {
        Side a = side("A", null, device("npu:0/chip:0", "hccl", 400L, "measured", "weights", 100L, "reported", "graph_pool", 50L, "reported"));
        Side b = side("B", null, device("npu:0/chip:0", "hccl", 500L, "measured", "weights", 100L, "exact", "graph_pool", null, "unknown"));
        Diff d = Differ.diff(a, b);
        assertThat(row(d, "hccl").delta()).isEqualTo(100L);
        assertThat(row(d, "hccl").deltaConfidence()).isEqualTo("measured");
        assertThat(row(d, "hccl").mixed()).isFalse();
        // reported and exact: the weaker (reported), and said to be mixed
        assertThat(row(d, "weights").deltaConfidence()).isEqualTo("reported");
        assertThat(row(d, "weights").mixed()).isTrue();
        // an unknown side is an unknown delta, never 0
        assertThat(row(d, "graph_pool").delta()).isNull();
        assertThat(row(d, "graph_pool").deltaConfidence()).isEqualTo("unknown");
        assertThat(row(d, "hccl").explanation()).isEqualTo("not explained by a setting the evidence shows");
        assertThat(d.notes()).anyMatch(n -> n.startsWith("no setting differs"));
    }

    @Test
    void devicesPairByPhysicalIdAndTheRestIsNamed() {
        Side a = side("A", "0.9", device("npu:0/chip:0", "kv_cache", 10L << 30, "reported"), device("npu:1/chip:0", "kv_cache", 10L << 30, "reported"));
        Side b = side("B", "0.8", device("npu:1/chip:0", "kv_cache", 4L << 30, "reported"), device("npu:2/chip:0", "kv_cache", 4L << 30, "reported"));
        Diff d = Differ.diff(a, b);
        assertThat(d.devices()).extracting(Diff.DevicePair::device).containsExactly("npu:1/chip:0");
        assertThat(d.onlyA()).containsExactly("npu:0/chip:0");
        assertThat(d.onlyB()).containsExactly("npu:2/chip:0");
        assertThat(d.notes().get(0)).contains("device sets differ", "only in A: npu:0/chip:0", "only in B: npu:2/chip:0");
        // 0.9 -> 0.8 of 60 GiB predicts -6 GiB; -6 GiB observed
        Diff.Row kv = row(d, "kv_cache");
        assertThat(kv.expected()).isEqualTo(Math.round(-0.1 * (60L << 30)));
        assertThat(kv.explanation()).contains("explained within 1%");
    }
}

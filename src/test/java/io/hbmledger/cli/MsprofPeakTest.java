package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.load.MsprofPeakExports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device's peak in the ledger, from small msprof exports written here in msprof's own
 * column layouts (npu_mem_*.csv, npu_module_mem_*.csv of mindstudio_profiler_output), read
 * through the loader's two passes ({@link MsprofPeakExports} writes them). Every amount is a whole number of MiB written in KB, so the
 * arithmetic can be checked by eye: X MiB is written as X * 1024 KB.
 *
 * <p>Export A: T0 = 2027-01-15T08:00:00Z = 1800000000000000 us; npu_mem samples every 100 ms at
 * T0 + k * 100 ms (k = 0..9), npu_module_mem 2 ms before each (T0 + k * 100 ms - 2 ms), as the two
 * collectors run apart. Ready at T0 + 450 ms: the last npu_mem sample is k = 4 (T0 + 400 ms), the
 * last module sample k = 4 (T0 + 398 ms).
 * <pre>
 * k                  0..5    6      7      8      9
 * npu_mem Device     50000  51000  51600  50500  50000  MiB   peak at k = 7 (T0 + 700 ms)
 * npu_mem APP         2000   2900   3600   2500   2000  MiB
 * module APP          1500   2400   3000   2000   1500  MiB
 * module HCCL          400    400    400    400    400  MiB
 * module RUNTIME        90     90    190    190    190  MiB
 * module SLOG            4      4      4      4      4  MiB
 * </pre>
 * At the peak: Device 51600 - 50000 = 1600 MiB over ready; module APP 3000 (+1500), RUNTIME 190
 * (+100), HCCL 400 and SLOG 4 unchanged: 1500 + 100 = the 1600 MiB the device grew.
 *
 * <p>Export B is A with a start-up spike at k = 1 (T0 + 100 ms, 350 ms before ready: graph
 * capture): Device 53000 MiB, npu_mem APP 5000 MiB, module APP 4500 MiB. The whole run's maximum
 * is then that spike; the peak under load is still k = 7.
 */
class MsprofPeakTest {

    static final long T0 = MsprofPeakExports.T0;
    static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private Path exportA() throws Exception {
        return MsprofPeakExports.exportA(dir);
    }

    private Path exportB() throws Exception {
        return MsprofPeakExports.exportB(dir);
    }

    private static JsonNode analyze(String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("analyze", "--format", "json"));
        a.addAll(List.of(args));
        return AnalyzeFindingsTest.json(CliRun.of(a.toArray(String[]::new)));
    }

    /** The entry of the first device, as these single-device exports have one. */
    private static JsonNode entry(JsonNode report, String component) {
        return AnalyzeFindingsTest.entry(AnalyzeFindingsTest.device(report, 0), component);
    }

    @Test
    void thePeakSaysWhatEachModuleHeldAndWhichGrewSinceReady() throws Exception {
        JsonNode r = analyze("--instant", "ready=2027-01-15T08:00:00.450Z", exportA().toString());
        JsonNode peak = entry(r, "device_peak");
        assertThat(peak.get("bytes").asLong()).isEqualTo(51600 * MIB);
        assertThat(peak.get("counted").asBoolean()).isFalse();
        // module APP 3000 MiB = 2.93 GiB, +1500 MiB = +1.46 GiB; RUNTIME 190 MiB, +100 MiB
        assertThat(peak.get("note").asText()).contains("npu_module_mem at the peak",
                "APP 2.93 GiB (+1.46 GiB since ready)", "CANN runtime 190.0 MiB (+100.0 MiB since ready)",
                "HCCL 400.0 MiB (unchanged)", "other modules 4.0 MiB (unchanged)", "2 ms before the peak");
        JsonNode act = entry(r, "activation_peak_under_load");
        // 51600 - 50000 MiB = 1600 MiB, of which APP 1500 and the CANN runtime 100
        assertThat(act.get("bytes").asLong()).isEqualTo(1600 * MIB);
        assertThat(act.get("counted").asBoolean()).isFalse();
        assertThat(act.get("note").asText()).contains("grew from ready to the peak: APP +1.46 GiB, CANN runtime +100.0 MiB;"
                + " unchanged: HCCL, other modules");
        // the measured lines at ready are unchanged by the peak: HCCL 400, RUNTIME 90 MiB
        assertThat(entry(r, "hccl").get("bytes").asLong()).isEqualTo(400 * MIB);
        assertThat(entry(r, "cann_runtime").get("bytes").asLong()).isEqualTo(90 * MIB);
        assertThat(entry(r, "hccl").get("counted").asBoolean()).isTrue();
    }

    @Test
    void aStartUpSpikeAboveTheLoadIsNamedAndThePeakUnderLoadIsTheMaximumAfterReady() throws Exception {
        JsonNode r = analyze("--instant", "ready=2027-01-15T08:00:00.450Z", exportB().toString());
        JsonNode peak = entry(r, "device_peak");
        // the maximum from ready on: k = 7, npu_mem data row 16 (rows alternate app, device)
        assertThat(peak.get("bytes").asLong()).isEqualTo(51600 * MIB);
        assertThat(peak.get("sources").get(0).get("line").asInt()).isEqualTo(16);
        assertThat(peak.get("sources").get(0).get("text").asText()).isEqualTo("52838400");
        // the spike: 53000 MiB = 51.76 GiB at k = 1 (data row 4), 1400 MiB = 1.37 GiB above the
        // load peak; module APP then 4500 MiB = 4.39 GiB, 3000 MiB = 2.93 GiB over ready
        assertThat(peak.get("note").asText()).contains("at or after ready", "250 ms after ready",
                "the whole run's maximum came BEFORE ready: 51.76 GiB at 2027-01-15T08:00:00.100Z (350 ms before ready)",
                "npu_mem_20270115080000.csv row 4 \"54272000\"", "1.37 GiB above the peak under load: a start-up peak",
                "npu_module_mem then: APP 4.39 GiB (+2.93 GiB over ready), HCCL 400.0 MiB (as at ready)",
                "npu_module_mem at the peak: APP 2.93 GiB (+1.46 GiB since ready)");
        JsonNode act = entry(r, "activation_peak_under_load");
        // 51600 - 50000 MiB, as in export A: the spike before ready does not hide the load
        assertThat(act.get("confidence").asText()).isEqualTo("measured");
        assertThat(act.get("bytes").asLong()).isEqualTo(1600 * MIB);
        assertThat(act.get("note").asText()).contains("APP +1.46 GiB, CANN runtime +100.0 MiB");
    }

    /**
     * Export C: msprof stalls before ready. npu_mem Device and npu_module_mem HCCL (2 ms
     * earlier) at T0 + 0, 100, 200 ms: Device 50000 MiB; nothing from 200 to 5200 ms (graph
     * capture adds 2000 MiB meanwhile); then every 100 ms to 15000 ms: Device 52000 MiB, 53000 at
     * 8000 ms. HCCL 400 MiB throughout. 3 + 99 = 102 samples over 15 s: mean interval
     * 15000 / 101 = 148.5 ms, so the stale limit is max(5 x 148.5 ms, 1 s) = 1 s. Ready at
     * T0 + 5000 ms: the last sample before it is at 200 ms, 4800 ms old: stale, yet within two
     * largest gaps (2 x 5000 ms) of ready, so still the (measured) value at ready.
     */
    @Test
    void aReadySampleTakenBeforeAStallIsShownWithItsTimeAndWarned() throws Exception {
        Path out = Files.createDirectories(dir.resolve("PROF_000001_C/mindstudio_profiler_output"));
        StringBuilder mem = new StringBuilder("Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n");
        StringBuilder mod = new StringBuilder("Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n");
        for (int k = 0; k <= 150; k++) {
            if (k > 2 && k < 52) {
                continue;
            }
            long ts = T0 + k * 100_000L;
            long device = k <= 2 ? 50000 : k == 80 ? 53000 : 52000;
            mem.append("0,device,0,").append(device * 1024).append(',').append(device * 1024).append(',').append(ts).append(".000\t\n");
            mod.append("0,HCCL,").append(ts - 2_000L).append(".000\t,").append(400 * 1024).append(",NPU:0\n");
        }
        Files.writeString(out.resolve("npu_mem_1.csv"), mem, StandardCharsets.US_ASCII);
        Files.writeString(out.resolve("npu_module_mem_1.csv"), mod, StandardCharsets.US_ASCII);
        JsonNode r = analyze("--instant", "ready=2027-01-15T08:00:05Z", dir.resolve("PROF_000001_C").toString());
        JsonNode d = r.get("devices").get(0);
        // used at ready: the 200 ms sample, 50000 MiB, measured, its age said
        assertThat(d.get("used_bytes").asLong()).isEqualTo(50000 * MIB);
        assertThat(d.get("used_note").asText()).contains("sampled at 2027-01-15T08:00:00.200Z, 4800 ms before ready: STALE");
        JsonNode hccl = entry(r, "hccl");
        assertThat(hccl.get("confidence").asText()).isEqualTo("measured");
        assertThat(hccl.get("note").asText()).contains("HCCL: sampled at 2027-01-15T08:00:00.198Z, 4802 ms before ready: STALE");
        // 53000 - 50000 MiB: the 2000 MiB graph capture added during the stall is inside it, and said so
        JsonNode act = entry(r, "activation_peak_under_load");
        assertThat(act.get("bytes").asLong()).isEqualTo(3000 * MIB);
        assertThat(act.get("note").asText()).contains("the device at ready was sampled at 2027-01-15T08:00:00.200Z",
                "the growth may include what start-up added after that sample");
        JsonNode check = null;
        for (JsonNode c : d.get("checks")) {
            if (c.get("name").asText().equals("msprof_ready_sample")) {
                check = c;
            }
        }
        assertThat(check).isNotNull();
        assertThat(check.get("status").asText()).isEqualTo("warn");
        assertThat(check.get("detail").asText()).contains(
                "npu_mem Device: sampled at 2027-01-15T08:00:00.200Z, 4800 ms before ready (limit 1000 ms, typical interval 149 ms)",
                "npu_module_mem HCCL: sampled at 2027-01-15T08:00:00.198Z");
    }
}

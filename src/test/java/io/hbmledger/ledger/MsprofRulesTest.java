package io.hbmledger.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.msprof.MsprofPeakMoments;
import io.hbmledger.evidence.msprof.MsprofQuantity;
import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.evidence.msprof.MsprofValueAt;
import io.hbmledger.ledger.check.MsprofAppCheck;
import io.hbmledger.ledger.check.MsprofDeviceCheck;
import io.hbmledger.ledger.check.MsprofReadySampleCheck;
import io.hbmledger.ledger.msprof.MsprofPeakRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The msprof rules over summaries built by hand (the ledger receives summaries; reading is
 * tested on real files in cli.MsprofAnalyzeTest). Times are microseconds since the epoch:
 * T0 = first sample, ready at T0 + 5 s, samples every 20 ms; every amount is a round MiB count
 * so the arithmetic can be checked by eye.
 */
class MsprofRulesTest {

    static final long MIB = 1L << 20;
    static final long T0 = 1_800_000_000_000_000L;
    static final long READY = T0 + 5_000_000L;
    static final String FILE = "run/PROF_1/mindstudio_profiler_output/npu_module_mem_1.csv";

    /** A series whose value at ready is {@code atReady} (sampled 10 ms before) and whose maximum is {@code peak} at {@code peakTs}. */
    static MsprofSeries series(MsprofQuantity q, String device, String comp, long atReady, long peak, long peakTs,
                               long gapUs, Map<String, Long> extraAt) {
        Map<String, MsprofValueAt> at = new HashMap<>();
        at.put("ready", new MsprofValueAt("ready", READY, atReady, Long.toString(atReady / 1024), READY - 10_000, FILE, 11));
        extraAt.forEach((k, v) -> at.put(k, new MsprofValueAt(k, peakTs, v, Long.toString(v / 1024), peakTs, FILE, 99)));
        return new MsprofSeries(q, device, false, comp, peak, Long.toString(peak / 1024), FILE, 42, peakTs,
                500, T0, T0 + 10_000_000L, gapUs, at);
    }

    static MsprofSeries module(String device, String comp, long mib) {
        return series(MsprofQuantity.MODULE_RESERVED_PEAK, device, comp, mib * MIB, mib * MIB, T0, 20_000, Map.of());
    }

    static MsprofEvidence evidence(String rank, MsprofSeries... s) {
        MsprofSummary sum = new MsprofSummary(List.of(), List.of(s), List.of(), List.of());
        Map<String, Integer> ids = rank == null ? Map.of() : Map.of("rank", Integer.parseInt(rank));
        return new MsprofEvidence(List.of(new MsprofEvidence.Export("PROF_1", "msprof", ids, sum)),
                Map.of("ready", READY), "run.json moments.ready", MsprofEvidence.RUN_JSON_READY, "run", List.of());
    }

    static Ledger ledger(MsprofEvidence m, List<Integer> devices) {
        List<EvidenceSet.FileInfo> files = new ArrayList<>(List.of(new EvidenceSet.FileInfo("PROF_1", EvidenceFormat.MSPROF_EXPORT, null)));
        EvidenceSet ev = new EvidenceSet(List.of(), files, Layout.of(devices.size(), 1, devices, List.of(), "m"), m);
        return Attribution.standard().attribute(ev);
    }

    static Entry entry(DeviceLedger d, String c) {
        return d.entries().stream().filter(e -> e.component().equals(c)).findFirst().orElseThrow();
    }

    static Check check(DeviceLedger d, String name) {
        return d.checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** Every module at 0 (QA: the note read "all 0; 72 more at 0"): the count, said once. */
    @Test
    void modulesAllAtZeroAreCountedOnce() {
        Ledger l = ledger(evidence(null, module("npu:0", "HCCL", 0), module("npu:0", "SLOG", 0),
                module("npu:0", "DRV", 0), module("npu:0", "DVPP", 0)), List.of(0));
        DeviceLedger d = l.devices().get(0);
        Entry other = entry(d, Component.OTHER_MODULES);
        assertThat(other.bytes()).isZero();
        assertThat(other.note()).contains("all 3 components at 0").doesNotContain("more at 0");
        assertThat(entry(d, Component.HCCL).note()).contains("0 (HCCL)").doesNotContain("all 0");
    }

    @Test
    void modulesAtReadySplitIntoHcclCannRuntimeAndOtherModules() {
        Ledger l = ledger(evidence(null, module("npu:0", "HCCL", 404), module("npu:0", "RUNTIME", 92),
                module("npu:0", "GE", 76), module("npu:0", "APP", 1452), module("npu:0", "SLOG", 4),
                module("npu:0", "DRV", 64), module("npu:0", "DVPP", 0)), List.of(0));
        DeviceLedger d = l.devices().get(0);
        assertThat(entry(d, Component.HCCL).bytes()).isEqualTo(404 * MIB);
        assertThat(entry(d, Component.HCCL).moment()).isEqualTo("ready");
        // a data row of the table (header excluded), shown as "row 11", never as line 11
        assertThat(entry(d, Component.HCCL).sources().get(0)).isEqualTo(new Source("PROF_1/mindstudio_profiler_output/npu_module_mem_1.csv", 11, "413696", true));
        // RUNTIME 92 + GE 76; APP is not a line (vLLM's figures split it)
        assertThat(entry(d, Component.CANN_RUNTIME).bytes()).isEqualTo(168 * MIB);
        // SLOG 4 + DRV 64; counted, as no baseline or process table holds them here
        Entry other = entry(d, Component.OTHER_MODULES);
        assertThat(other.bytes()).isEqualTo(68 * MIB);
        assertThat(other.counted()).isTrue();
        assertThat(other.note()).contains("SLOG 4.0 MiB", "DRV 64.0 MiB", "1 more at 0");
        assertThat(l.incompleteReasons()).noneMatch(r -> r.contains("msprof"));
        assertThat(check(d, MsprofDeviceCheck.IDS).status()).isEqualTo(Check.Status.PASS);
    }

    /** APP against vLLM's weights 7000 MiB + KV 45000 MiB; npu_mem APP = the whole process. */
    static String appCheck(long appMib, long processMib) {
        MsprofEvidence m = evidence(null, module("npu:0", "HCCL", 404), module("npu:0", "RUNTIME", 92),
                module("npu:0", "GE", 76), module("npu:0", "APP", appMib),
                series(MsprofQuantity.APP_HBM_PEAK, "npu:0", null, processMib * MIB, processMib * MIB, T0, 20_000, Map.of()));
        List<TaggedObservation> obs = List.of(
                new TaggedObservation(io.hbmledger.evidence.Observation.bytes(Quantity.WEIGHTS, 7000 * MIB, 10, "7000 MiB"),
                        "serve.log", EvidenceFormat.VLLM_LOG, io.hbmledger.run.Moment.STARTUP, 0, null),
                new TaggedObservation(io.hbmledger.evidence.Observation.bytes(Quantity.KV_CACHE_AVAILABLE, 45000 * MIB, 11, "45000 MiB"),
                        "serve.log", EvidenceFormat.VLLM_LOG, io.hbmledger.run.Moment.STARTUP, 0, null));
        List<EvidenceSet.FileInfo> files = List.of(new EvidenceSet.FileInfo("PROF_1", EvidenceFormat.MSPROF_EXPORT, null),
                new EvidenceSet.FileInfo("serve.log", EvidenceFormat.VLLM_LOG, io.hbmledger.run.Moment.STARTUP));
        EvidenceSet ev = new EvidenceSet(obs, files, Layout.of(1, 1, List.of(0), List.of(), "m"), m);
        DeviceLedger d = Attribution.standard().attribute(ev).devices().get(0);
        Check c = check(d, MsprofAppCheck.CHECK);
        return c.status() + " " + c.detail();
    }

    @Test
    void geInsideAppIsTakenOutBeforeComparingWithVllm() {
        // APP 52076 = 7000 + 45000 + GE 76; the process 52572 = APP + HCCL 404 + RUNTIME 92: GE is inside APP
        assertThat(appCheck(52076, 52572)).startsWith("PASS").contains("APP holds GE 76.0 MiB, taken out",
                "at ready APP 50.78 GiB", "difference 0.00 GiB");
        // APP 52000 = 7000 + 45000; the process 52572 = APP + HCCL + RUNTIME + GE: GE is beside APP
        assertThat(appCheck(52000, 52572)).startsWith("PASS").contains("GE is outside it", "difference 0.00 GiB");
        // APP 54000: 2000 MiB more than vLLM's figures, above 2% of APP
        assertThat(appCheck(54000, 54572)).startsWith("WARN").contains("difference 1.95 GiB");
    }

    @Test
    void torchNpuIndicesAreMappedThroughTheDeploymentDevicesAndSaidSo() {
        Ledger l = ledger(evidence(null, module("npu:0", "HCCL", 100), module("npu:1", "HCCL", 200)), List.of(4, 5));
        assertThat(entry(l.devices().get(0), Component.HCCL).bytes()).isEqualTo(100 * MIB);
        assertThat(entry(l.devices().get(1), Component.HCCL).bytes()).isEqualTo(200 * MIB);
        Check ids = check(l.devices().get(1), MsprofDeviceCheck.IDS);
        assertThat(ids.status()).isEqualTo(Check.Status.WARN);
        assertThat(ids.detail()).contains("npu:1 taken as index 1 into deployment.devices [4, 5]", "device 5");
    }

    @Test
    void rankFolderTiesItsOneDeviceToThatRank() {
        Ledger l = ledger(evidence("1", module("npu:0", "HCCL", 300)), List.of(4, 5));
        assertThat(entry(l.devices().get(1), Component.HCCL).bytes()).isEqualTo(300 * MIB);
        assertThat(l.devices().get(0).entries()).noneMatch(e -> e.component().equals(Component.HCCL) && e.known());
    }

    @Test
    void unreconcilableIdsAndHostRowsStayOutOfEveryDevice() {
        MsprofSeries host = new MsprofSeries(MsprofQuantity.STATIC_GRAPH_TOTAL, null, false, "0", 17623552, "17210.5",
                FILE, 3, null, 1, null, null, null, Map.of());
        Ledger l = ledger(evidence(null, module("npu:4", "HCCL", 100), module("npu:7", "HCCL", 700), host), List.of(4, 5));
        assertThat(entry(l.devices().get(0), Component.HCCL).bytes()).isEqualTo(100 * MIB);
        assertThat(l.devices().get(1).entries()).noneMatch(e -> e.component().equals(Component.HCCL) && e.known());
        assertThat(l.processLevel()).extracting(ProcessLevelEntry::component, ProcessLevelEntry::bytes)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("hccl", 700 * MIB),
                        org.assertj.core.groups.Tuple.tuple("static_graph", 17623552L));
        assertThat(l.notes()).anyMatch(n -> n.contains("npu:7 in PROF_1 is not a device of the deployment [4, 5]"));
        assertThat(l.incompleteReasons()).contains("the msprof export has no data for device(s) [5]: HCCL, CANN runtime and the peak are not measured there");
    }

    @Test
    void peakUnderLoadAndActivationAsPeakMinusReady() {
        long peakTs = READY + 3_000_000L;
        MsprofSeries dev = series(MsprofQuantity.DEVICE_HBM_PEAK, "npu:0", null, 50_000 * MIB, 51_000 * MIB, peakTs,
                20_000, Map.of());
        MsprofSeries app = series(MsprofQuantity.APP_HBM_PEAK, "npu:0", null, 46_000 * MIB, 46_700 * MIB, peakTs,
                20_000, Map.of(MsprofPeakMoments.peak("npu:0"), 46_600 * MIB));
        DeviceLedger d = ledger(evidence(null, dev, app), List.of(0)).devices().get(0);
        Entry peak = entry(d, MsprofPeakRule.DEVICE_PEAK);
        assertThat(peak.bytes()).isEqualTo(51_000 * MIB);
        assertThat(peak.counted()).isFalse();
        assertThat(peak.note()).contains("3000 ms after ready");
        Entry act = entry(d, MsprofPeakRule.ACTIVATION_UNDER_LOAD);
        // 51000 - 50000 MiB; the app grew 46600 - 46000 = 600 MiB (under 1 GiB: shown in MiB)
        assertThat(act.bytes()).isEqualTo(1_000 * MIB);
        assertThat(act.confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(act.note()).contains("grew 600.0 MiB");
        // used comes from npu_mem Device at ready when npu-smi has no sample
        assertThat(d.used().bytes()).isEqualTo(50_000 * MIB);
        assertThat(check(d, MsprofPeakRule.SAMPLING_CHECK).status()).isEqualTo(Check.Status.PASS);
    }

    @Test
    void aStartUpMaximumIsNoPeakUnderLoadAndCoarseSamplingWarns() {
        MsprofSeries dev = series(MsprofQuantity.DEVICE_HBM_PEAK, "npu:0", null, 50_000 * MIB, 52_000 * MIB,
                READY - 2_000_000L, 500_000, Map.of());
        DeviceLedger d = ledger(evidence(null, dev), List.of(0)).devices().get(0);
        assertThat(entry(d, MsprofPeakRule.DEVICE_PEAK).note()).contains("BEFORE ready");
        assertThat(entry(d, MsprofPeakRule.ACTIVATION_UNDER_LOAD).known()).isFalse();
        Check s = check(d, MsprofPeakRule.SAMPLING_CHECK);
        assertThat(s.status()).isEqualTo(Check.Status.WARN);
        assertThat(s.detail()).contains("up to 500 ms apart");
    }

    /** The device series of {@link #series} with its maximum at or after ready ({@code winMib} MiB at {@code winTs}, row 77). */
    static MsprofSeries withWindow(MsprofSeries s, long winMib, long winTs) {
        return new MsprofSeries(s.quantity(), s.device(), false, s.component(), s.peakBytes(), s.peakText(), FILE,
                s.peakRow(), s.peakTimestampUs(), s.samples(), s.firstTimestampUs(), s.lastTimestampUs(), s.maxGapUs(),
                s.at(), new io.hbmledger.evidence.msprof.MsprofWindowPeak("ready", READY, winMib * MIB,
                        Long.toString(winMib * 1024), winTs, FILE, 77));
    }

    @Test
    void whenStartUpWentHigherThePeakUnderLoadIsTheMaximumAfterReady() {
        // whole run: 52000 MiB 2 s before ready (graph capture); from ready on: 51000 MiB 3 s after
        MsprofSeries dev = withWindow(series(MsprofQuantity.DEVICE_HBM_PEAK, "npu:0", null, 50_000 * MIB, 52_000 * MIB,
                READY - 2_000_000L, 20_000, Map.of()), 51_000, READY + 3_000_000L);
        DeviceLedger d = ledger(evidence(null, dev), List.of(0)).devices().get(0);
        Entry peak = entry(d, MsprofPeakRule.DEVICE_PEAK);
        assertThat(peak.bytes()).isEqualTo(51_000 * MIB);
        assertThat(peak.sources()).containsExactly(new Source("PROF_1/mindstudio_profiler_output/npu_module_mem_1.csv", 77, "52224000", true));
        assertThat(peak.counted()).isFalse();
        // 52000 MiB = 50.78 GiB, 1000 MiB over the peak under load (under 1 GiB: in MiB); the start-up row is 42
        assertThat(peak.note()).contains("at or after ready", "3000 ms after ready",
                "the whole run's maximum came BEFORE ready: 50.78 GiB", "2000 ms before ready", "row 42 \"53248000\"",
                "1000.0 MiB above the peak under load: a start-up peak");
        Entry act = entry(d, MsprofPeakRule.ACTIVATION_UNDER_LOAD);
        // 51000 - 50000 MiB, measured: no longer unknown because start-up went higher
        assertThat(act.bytes()).isEqualTo(1_000 * MIB);
        assertThat(act.confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(act.arithmetic()).contains("device peak after ready " + 51_000 * MIB + " B", "device at ready " + 50_000 * MIB + " B");
    }

    @Test
    void noGrowthAfterReadyIsSaidNotForcedToZero() {
        // from ready on the device never returns to its ready value: 49000 - 50000 = -1000 MiB
        MsprofSeries dev = withWindow(series(MsprofQuantity.DEVICE_HBM_PEAK, "npu:0", null, 50_000 * MIB, 52_000 * MIB,
                READY - 2_000_000L, 20_000, Map.of()), 49_000, READY + 1_000_000L);
        DeviceLedger d = ledger(evidence(null, dev), List.of(0)).devices().get(0);
        Entry act = entry(d, MsprofPeakRule.ACTIVATION_UNDER_LOAD);
        assertThat(act.bytes()).isEqualTo(-1_000 * MIB);
        assertThat(act.note()).contains("did not grow under load");
    }

    /**
     * A series whose last sample before ready was taken 4 s before it, at T0 + 1 s =
     * 08:00:01Z (msprof stalled), though it samples every 20 ms otherwise: 500 samples over
     * 10 s, mean interval 10 s / 499 = 20 ms, largest gap 4.5 s (the stall). Limit
     * max(5 x 20 ms, 1 s) = 1 s < 4 s: stale. It is still within 2 largest gaps (9 s) of ready,
     * so it is the value at ready (measured), said to be old.
     */
    static MsprofSeries staleAtReady(MsprofQuantity q, String comp, long mib) {
        Map<String, MsprofValueAt> at = Map.of("ready",
                new MsprofValueAt("ready", READY, mib * MIB, Long.toString(mib * 1024), READY - 4_000_000L, FILE, 11));
        return new MsprofSeries(q, "npu:0", false, comp, mib * MIB, Long.toString(mib * 1024), FILE, 11, READY - 4_000_000L,
                500, T0, T0 + 10_000_000L, 4_500_000L, at);
    }

    @Test
    void aReadySampleOlderThanFiveIntervalsOrOneSecondIsSaidAndWarned() {
        MsprofSeries hccl = staleAtReady(MsprofQuantity.MODULE_RESERVED_PEAK, "HCCL", 404);
        MsprofSeries dev = staleAtReady(MsprofQuantity.DEVICE_HBM_PEAK, null, 50_000);
        DeviceLedger d = ledger(evidence(null, hccl, dev, module("npu:0", "RUNTIME", 92)), List.of(0)).devices().get(0);
        Entry e = entry(d, Component.HCCL);
        // still the measured value at ready, with the sample's own time: READY - 4 s = 08:00:01Z
        assertThat(e.bytes()).isEqualTo(404 * MIB);
        assertThat(e.confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(e.moment()).isEqualTo("ready");
        assertThat(e.note()).contains("HCCL: sampled at 2027-01-15T08:00:01Z, 4000 ms before ready: STALE",
                "no sample of this series in the 4000 ms before ready");
        // RUNTIME was sampled 10 ms before ready: fresh, not named
        assertThat(entry(d, Component.CANN_RUNTIME).note()).doesNotContain("STALE");
        assertThat(d.used().note()).contains("STALE");
        Check c = check(d, MsprofReadySampleCheck.CHECK);
        assertThat(c.status()).isEqualTo(Check.Status.WARN);
        assertThat(c.detail()).contains("npu_mem Device: sampled at 2027-01-15T08:00:01Z, 4000 ms before ready",
                "npu_module_mem HCCL: sampled at 2027-01-15T08:00:01Z", "limit 1000 ms");
    }

    @Test
    void freshReadySamplesPassTheCheck() {
        // every sample at ready is 10 ms old (see series): within max(5 x 20 ms, 1 s)
        MsprofSeries dev = series(MsprofQuantity.DEVICE_HBM_PEAK, "npu:0", null, 50_000 * MIB, 50_000 * MIB, T0, 20_000, Map.of());
        DeviceLedger d = ledger(evidence(null, dev, module("npu:0", "HCCL", 404)), List.of(0)).devices().get(0);
        Check c = check(d, MsprofReadySampleCheck.CHECK);
        assertThat(c.status()).isEqualTo(Check.Status.PASS);
        assertThat(c.detail()).contains("npu_mem Device 10 ms, npu_module_mem at most 10 ms (HCCL) before ready");
    }
}

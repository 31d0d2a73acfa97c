package io.hbmledger.ledger;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The device's peak under load from msprof's npu_mem {@code Device} series: the highest sample,
 * with its time placed among the run's moments, and the activation peak under load = that peak
 * minus the value at ready (both samples of the same series), next to vLLM's start-up profile
 * figure ({@code activation_peak}, reported). Neither is resident at ready, so neither is
 * counted in a ready ledger. A peak sampled before ready belongs to start-up and gives no
 * activation peak under load. The sampling check says when samples are too far apart to trust a
 * peak.
 */
final class MsprofPeakRule implements DeviceRule {

    /** The highest whole-device sample (not counted at ready). */
    static final String DEVICE_PEAK = "device_peak";
    /** Device peak minus device at ready, from the same npu_mem series. */
    static final String ACTIVATION_UNDER_LOAD = "activation_peak_under_load";
    static final String SAMPLING_CHECK = "msprof_sampling";
    /** A gap between samples above this can hide a peak: msprof's default is 50 Hz (20 ms). */
    static final long COARSE_US = 100_000L;

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        if (!m.present() || !"ready".equals(d.moment)) {
            return;
        }
        List<MsprofDeviceMap.Match> matches = MsprofDeviceMap.of(m, ev.layout()).matches(d.logicalDevice);
        if (matches.isEmpty()) {
            return;
        }
        MsprofDeviceMap.Match match = matches.get(0);
        MsprofSummary.DeviceMemory dm = match.export().summary().device(match.key());
        Optional<MsprofSeries> devSeries = dm.wholeDevice();
        if (devSeries.isEmpty()) {
            return;
        }
        MsprofSeries dev = devSeries.get();
        sampling(d, dev);
        Source peakSrc = new Source(m.shown(dev.peakFile()), (int) Math.min(Integer.MAX_VALUE, dev.peakRow()), dev.peakText());
        Long ts = dev.peakTimestampUs();
        String when = ts == null ? "time not recorded" : MsprofReading.time(ts) + placed(m.momentsUs(), ts);
        Long ready = m.readyUs().orElse(null);
        boolean afterReady = ts != null && ready != null && ts >= ready;
        String coarse = dev.tooCoarse(COARSE_US) ? "; samples up to " + gap(dev) + " apart: a shorter peak may be missed" : "";
        Optional<MsprofPeakModules> modules = MsprofPeakModules.of(m, dm, MsprofEvidence.peakMoment(match.key()));
        d.put(new Entry(DEVICE_PEAK, dev.peakBytes(), Confidence.MEASURED, List.of(peakSrc),
                "highest whole-device HBM sample (msprof npu_mem Device, " + match.key() + ", " + dev.samples()
                        + " samples), at " + when + (ready == null ? "; the run gives no ready instant to place it"
                        : afterReady ? "" : "; BEFORE ready: a start-up peak, not a peak under load")
                        + modules.map(x -> "; " + x.held()).orElse("")
                        + coarse + "; not resident at ready, so not in the sum",
                "peak", false, null));
        if (ready == null) {
            d.put(Entry.unknown(ACTIVATION_UNDER_LOAD, "needs the ready instant (run.json moments.ready) to subtract the device's usage at ready from its peak"));
            return;
        }
        if (!afterReady) {
            d.put(Entry.unknown(ACTIVATION_UNDER_LOAD, "the highest sample of the run is before ready (start-up), so the series maximum says nothing about load; a run with a workload after ready is needed"));
            return;
        }
        Optional<MsprofReading> atReady = MsprofReading.at(m, dev, "ready", "ready");
        if (atReady.isEmpty()) {
            d.put(Entry.unknown(ACTIVATION_UNDER_LOAD, "no npu_mem Device sample at ready: " + MsprofReading.whyNot(dev, ready, "ready")));
            return;
        }
        long r = atReady.get().bytes();
        long act = dev.peakBytes() - r;
        String app = appGrowth(m, dm, match.key());
        String grew = modules.flatMap(MsprofPeakModules::grew).map(x -> "; " + x).orElse("");
        d.put(new Entry(ACTIVATION_UNDER_LOAD, act, Confidence.MEASURED, List.of(peakSrc, atReady.get().source()),
                "growth of the whole device from ready to its peak under load (activations and workspace of the requests"
                        + app + grew + "); beside vLLM's start-up profile figure (activation_peak, reported)" + coarse
                        + "; not resident at ready, so not in the sum",
                "peak", false, "device peak " + dev.peakBytes() + " B at " + MsprofReading.time(ts) + " - device at ready "
                        + r + " B = " + act + " B (" + Units.gib(act) + ")"));
    }

    private static String appGrowth(MsprofEvidence m, MsprofSummary.DeviceMemory dm, String key) {
        Optional<MsprofSeries> app = dm.app();
        if (app.isEmpty()) {
            return "";
        }
        Optional<MsprofReading> atPeak = MsprofReading.at(m, app.get(), MsprofEvidence.peakMoment(key), "the peak");
        Optional<MsprofReading> atReady = MsprofReading.at(m, app.get(), "ready", "ready");
        if (atPeak.isEmpty() || atReady.isEmpty()) {
            return "";
        }
        return "; the serving process (npu_mem APP) grew " + Units.gib(atPeak.get().bytes() - atReady.get().bytes());
    }

    private static void sampling(DeviceDraft d, MsprofSeries dev) {
        if (dev.samples() < 2 || dev.maxGapUs() == null) {
            d.check(new Check(SAMPLING_CHECK, Check.Status.WARN, "npu_mem Device has " + dev.samples()
                    + " timed sample(s): no peak can be trusted"));
            return;
        }
        String mean = dev.meanIntervalUs().map(x -> MsprofReading.ms(Math.round(x))).orElse("?");
        if (dev.tooCoarse(COARSE_US)) {
            d.check(new Check(SAMPLING_CHECK, Check.Status.WARN, "npu_mem Device samples every " + mean
                    + " on average, up to " + gap(dev) + " apart: a peak shorter than that may fall between samples"
                    + (dev.meanIntervalUs().orElse(0.0) > COARSE_US ? "; collect with msprof --sys-hardware-mem-freq=50 or more"
                    : " (the rate is fine: collection stalled at times, e.g. on a busy host)")));
        } else {
            d.check(new Check(SAMPLING_CHECK, Check.Status.PASS, "npu_mem Device samples every " + mean
                    + " on average, at most " + gap(dev) + " apart (" + dev.samples() + " samples)"));
        }
    }

    private static String gap(MsprofSeries s) {
        return MsprofReading.ms(s.maxGapUs());
    }

    /** Where an instant falls among the run's named moments, e.g. " (12.3 s after ready, during load)". */
    static String placed(Map<String, Long> moments, long ts) {
        Long ready = moments.get("ready");
        StringBuilder b = new StringBuilder();
        if (ready != null) {
            long dt = ts - ready;
            b.append(dt >= 0 ? MsprofReading.ms(dt) + " after ready" : MsprofReading.ms(-dt) + " before ready");
        }
        Long ls = moments.get("load_start");
        Long le = moments.get("load_end");
        if (ls != null && le != null) {
            b.append(b.length() == 0 ? "" : ", ").append(ts >= ls && ts <= le ? "during the load" : ts > le ? "after the load" : "before the load");
        }
        return b.length() == 0 ? "" : " (" + b + ")";
    }
}

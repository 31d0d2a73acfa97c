package io.hbmledger.ledger.msprof;

import io.hbmledger.evidence.msprof.MsprofPeakMoments;
import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.evidence.msprof.MsprofWindowPeak;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.Units;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The device's peak under load from msprof's npu_mem {@code Device} series: the highest sample
 * at or after ready, with its time placed among the run's moments, and the activation peak under
 * load = that peak minus the value at ready (both samples of the same series), next to vLLM's
 * start-up profile figure ({@code activation_peak}, reported). Neither is resident at ready, so
 * neither is counted in a ready ledger. When start-up (model loading, graph capture, vLLM's
 * profile run) went higher than anything after ready, the whole run's maximum is named as that
 * start-up peak beside it, not taken for load. Without a ready instant the whole run's maximum is
 * all there is, and no activation peak under load can be told. What npu_module_mem held at the
 * peak says which module grew. The sampling check says when samples are too far apart to trust a
 * peak.
 */
public final class MsprofPeakRule implements DeviceRule {

    /** The highest whole-device sample at or after ready (not counted at ready). */
    public static final String DEVICE_PEAK = "device_peak";
    /** Device peak minus device at ready, from the same npu_mem series. */
    public static final String ACTIVATION_UNDER_LOAD = "activation_peak_under_load";
    public static final String SAMPLING_CHECK = "msprof_sampling";
    /** A gap between samples above this can hide a peak: msprof's default is 50 Hz (20 ms). */
    static final long COARSE_US = 100_000L;

    /**
     * The peak the ledger shows for a device.
     *
     * @param underLoad true when it is the maximum at or after ready, false for the whole run's
     * @param moment the moment name under which every series' value at it is kept
     */
    public record Peak(long bytes, Source source, Long timestampUs, boolean underLoad, String moment) {
    }

    /**
     * The maximum at or after ready when the run has a ready instant and a sample after it
     * (the whole run's maximum when that came after ready: then they are one sample); else the
     * whole run's maximum.
     */
    public static Peak shown(MsprofEvidence m, MsprofSeries dev, String key) {
        MsprofWindowPeak w = dev.windowPeak();
        Long ready = m.readyUs().orElse(null);
        if (w != null && "ready".equals(w.from()) && ready != null && w.fromUs() == ready) {
            return new Peak(w.bytes(), m.source(w.file(), w.row(), w.text()), w.timestampUs(), true,
                    MsprofPeakMoments.peakAfterReady(key));
        }
        Long ts = dev.peakTimestampUs();
        return new Peak(dev.peakBytes(), m.source(dev.peakFile(), dev.peakRow(), dev.peakText()),
                ts, ready != null && ts != null && ts >= ready, MsprofPeakMoments.peak(key));
    }

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        Optional<MsprofDeviceMap.Match> first = MsprofDeviceMap.atReady(ev, d);
        if (first.isEmpty()) {
            return;
        }
        MsprofDeviceMap.Match match = first.get();
        MsprofSummary.DeviceMemory dm = match.export().summary().device(match.key());
        Optional<MsprofSeries> devSeries = dm.wholeDevice();
        if (devSeries.isEmpty()) {
            return;
        }
        MsprofSeries dev = devSeries.get();
        sampling(d, dev);
        Peak peak = shown(m, dev, match.key());
        Long ts = peak.timestampUs();
        String when = ts == null ? "time not recorded" : MsprofReading.time(ts) + placed(m.momentsUs(), ts);
        Long ready = m.readyUs().orElse(null);
        String coarse = dev.tooCoarse(COARSE_US) ? "; samples up to " + gap(dev) + " apart: a shorter peak may be missed" : "";
        Optional<MsprofPeakModules> modules = MsprofPeakModules.of(m, dm, peak.moment());
        String what;
        if (ready == null) {
            what = "highest whole-device HBM sample (msprof npu_mem Device, " + match.key() + ", " + dev.samples()
                    + " samples), at " + when + "; the run gives no ready instant (" + m.readyHow() + ") to place it";
        } else if (peak.underLoad()) {
            what = "highest whole-device HBM sample at or after ready (msprof npu_mem Device, " + match.key() + ", "
                    + dev.samples() + " samples in the run), at " + when + startUp(m, dm, dev, peak);
        } else {
            boolean ended = dev.lastTimestampUs() != null && dev.lastTimestampUs() < ready;
            what = "highest whole-device HBM sample (msprof npu_mem Device, " + match.key() + ", " + dev.samples()
                    + " samples), at " + when + "; BEFORE ready: a start-up peak, not a peak under load"
                    + (ended ? " (no sample at or after ready: profiling stopped at " + MsprofReading.time(dev.lastTimestampUs()) + ")"
                    : " (the maximum after ready was not read)");
        }
        d.decide(new Entry(DEVICE_PEAK, peak.bytes(), Confidence.MEASURED, List.of(peak.source()),
                what + modules.map(x -> "; " + x.held()).orElse("") + coarse
                        // without a ready instant nothing says whether the maximum was resident at ready
                        + (ready == null ? "; the whole run's maximum, not a figure at ready, so not in the sum"
                        : "; not resident at ready, so not in the sum"),
                "peak", false, null));
        if (ready == null) {
            d.decide(Entry.unknown(ACTIVATION_UNDER_LOAD, "needs the ready instant (" + m.readyHow() + ") to subtract the device's usage at ready from its peak"));
            return;
        }
        if (!peak.underLoad()) {
            d.decide(Entry.unknown(ACTIVATION_UNDER_LOAD, dev.lastTimestampUs() != null && dev.lastTimestampUs() < ready
                    ? "no npu_mem Device sample at or after ready (profiling ended before it), so nothing is known about"
                    + " load; a run profiled through its workload is needed"
                    : "the highest sample of the run is before ready (start-up) and the maximum after ready was not read"));
            return;
        }
        Optional<MsprofReading> atReady = MsprofReading.at(m, dev, "ready", "ready");
        if (atReady.isEmpty()) {
            d.decide(Entry.unknown(ACTIVATION_UNDER_LOAD, "no npu_mem Device sample at ready: " + MsprofReading.whyNot(dev, ready, "ready")));
            return;
        }
        long r = atReady.get().bytes();
        long act = peak.bytes() - r;
        String app = appGrowth(m, dm, peak.moment());
        String grew = modules.flatMap(MsprofPeakModules::grew).map(x -> "; " + x).orElse("");
        String old = atReady.get().stale() ? "; the device at ready was " + atReady.get().note()
                + ", so the growth may include what start-up added after that sample" : "";
        // vLLM's figure is named only when the ledger has it: with msprof alone there is none to set beside
        String beside = d.get(Component.ACTIVATION_PEAK).filter(Entry::known)
                .map(e -> "; beside vLLM's start-up profile figure (activation_peak, " + e.confidence().jsonName() + ")")
                .orElse("");
        String none = act > 0 ? "" : "; no sample after ready is above the value at ready: the device did not grow under"
                + " load while it was profiled (was the workload inside the profiled window?)";
        // peak minus the value at ready: two samples of one npu_mem series, measured, the subtraction shown
        d.decide(new Entry(ACTIVATION_UNDER_LOAD, act, Confidence.MEASURED, List.of(peak.source(), atReady.get().source()),
                "growth of the whole device from ready to its peak under load (activations and workspace of the requests"
                        + app + grew + ")" + beside + old + none + coarse
                        + "; not resident at ready, so not in the sum",
                "peak", false, "device peak after ready " + peak.bytes() + " B at " + MsprofReading.time(ts)
                        + " - device at ready " + r + " B = " + act + " B (" + Units.gibOrMib(act) + ")"));
    }

    /** The whole run's maximum when it came before ready and went higher than the peak under load. */
    private static String startUp(MsprofEvidence m, MsprofSummary.DeviceMemory dm, MsprofSeries dev, Peak peak) {
        if (dev.peakBytes() <= peak.bytes() || dev.peakTimestampUs() == null) {
            return "; also the whole run's maximum";
        }
        String at = MsprofReading.time(dev.peakTimestampUs()) + placed(m.momentsUs(), dev.peakTimestampUs());
        return "; the whole run's maximum came BEFORE ready: " + Units.gib(dev.peakBytes()) + " at " + at + ", "
                + m.shown(dev.peakFile()) + " row " + dev.peakRow() + " \"" + dev.peakText() + "\", "
                + Units.gibOrMib(dev.peakBytes() - peak.bytes()) + " above the peak under load: a start-up peak (model loading,"
                + " graph capture, vLLM's profile run), not load"
                + MsprofPeakModules.of(m, dm, MsprofPeakMoments.peak(dm.device())).map(x -> " (" + x.then() + ")").orElse("");
    }

    private static String appGrowth(MsprofEvidence m, MsprofSummary.DeviceMemory dm, String peakMoment) {
        Optional<MsprofSeries> app = dm.app();
        if (app.isEmpty()) {
            return "";
        }
        Optional<MsprofReading> atPeak = MsprofReading.at(m, app.get(), peakMoment, "the peak");
        Optional<MsprofReading> atReady = MsprofReading.at(m, app.get(), "ready", "ready");
        if (atPeak.isEmpty() || atReady.isEmpty()) {
            return "";
        }
        return "; the serving process (npu_mem APP) grew " + Units.gibOrMib(atPeak.get().bytes() - atReady.get().bytes());
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

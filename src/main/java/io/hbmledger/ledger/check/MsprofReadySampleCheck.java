package io.hbmledger.ledger.check;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.msprof.MsprofDeviceMap;
import io.hbmledger.ledger.msprof.MsprofReading;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether the samples that stand for "at ready" were taken close to it ({@code
 * msprof_ready_sample}): the value at ready is the last sample at or before the instant, and on
 * a loaded host msprof may stall or lag, so that sample can be seconds older than ready (from
 * before graph capture, say). Warns when a sampled series' last sample before ready is older
 * than {@link MsprofReading#staleLimitUs} (max(5 x its typical interval, 1 s)), naming each with
 * its own time; memory_record is written per allocation and free, so its age is no fault.
 */
public final class MsprofReadySampleCheck implements DeviceRule {

    public static final String CHECK = "msprof_ready_sample";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        if (m.readyUs().isEmpty()) {
            return;
        }
        Optional<MsprofDeviceMap.Match> match = MsprofDeviceMap.atReady(ev, d);
        if (match.isEmpty()) {
            return;
        }
        MsprofSummary.DeviceMemory dm = match.get().memory();
        List<String> stale = new ArrayList<>();
        List<String> fresh = new ArrayList<>();
        read(m, "npu_mem Device", dm.wholeDevice(), stale, fresh);
        read(m, "npu_mem APP", dm.app(), stale, fresh);
        long oldestModule = -1;
        String oldestName = null;
        for (MsprofSeries s : dm.modules().values()) {
            Optional<MsprofReading> r = MsprofReading.at(m, s, "ready", "ready");
            if (r.isEmpty()) {
                continue;
            }
            if (r.get().stale()) {
                stale.add(limit(s, "npu_module_mem " + s.component(), s.at("ready").get().timestampUs(),
                        s.at("ready").get().ageUs()));
            } else if (s.at("ready").get().ageUs() > oldestModule) {
                oldestModule = s.at("ready").get().ageUs();
                oldestName = s.component();
            }
        }
        if (oldestName != null) {
            fresh.add("npu_module_mem at most " + MsprofReading.ms(oldestModule) + " (" + oldestName + ")");
        }
        if (stale.isEmpty() && fresh.isEmpty()) {
            return; // nothing sampled at ready: msprof_timeline says why
        }
        if (!stale.isEmpty()) {
            int shown = Math.min(8, stale.size());
            d.check(new Check(CHECK, Check.Status.WARN, "the last sample before ready is old for " + stale.size()
                    + " series: " + String.join("; ", stale.subList(0, shown)) + (stale.size() > shown ? "; ..." : "")
                    + ". msprof took no sample in between (stalled or lagged on a busy host): those values at ready are"
                    + " still the last measured, but may be from before the last start-up step (e.g. graph capture);"
                    + " use a ready instant inside steady sampling, or collect on a less loaded host"));
            return;
        }
        d.check(new Check(CHECK, Check.Status.PASS, "the last samples before ready are recent: "
                + String.join(", ", fresh) + " before ready, within max(5 x each series' typical interval, 1 s)"));
    }

    private static void read(MsprofEvidence m, String name, Optional<MsprofSeries> series, List<String> stale,
                             List<String> fresh) {
        if (series.isEmpty()) {
            return;
        }
        MsprofSeries s = series.get();
        Optional<MsprofReading> r = MsprofReading.at(m, s, "ready", "ready");
        if (r.isEmpty()) {
            return;
        }
        long age = s.at("ready").get().ageUs();
        if (r.get().stale()) {
            stale.add(limit(s, name, s.at("ready").get().timestampUs(), age));
        } else {
            fresh.add(name + " " + MsprofReading.ms(age));
        }
    }

    private static String limit(MsprofSeries s, String name, long ts, long age) {
        return name + ": sampled at " + MsprofReading.time(ts) + ", " + MsprofReading.ms(age) + " before ready (limit "
                + MsprofReading.ms(MsprofReading.staleLimitUs(s)) + ", typical interval "
                + s.meanIntervalUs().map(i -> MsprofReading.ms(Math.round(i))).orElse("?") + ")";
    }
}

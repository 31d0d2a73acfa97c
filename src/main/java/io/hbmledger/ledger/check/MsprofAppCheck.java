package io.hbmledger.ledger.check;

import io.hbmledger.evidence.msprof.MsprofPeakMoments;
import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.msprof.MsprofDeviceMap;
import io.hbmledger.ledger.msprof.MsprofModules;
import io.hbmledger.ledger.msprof.MsprofPeakRule;
import io.hbmledger.ledger.msprof.MsprofReading;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The application's own memory in msprof (npu_module_mem {@code APP}: torch_npu's caching
 * allocator) against vLLM's split of it: at ready, weights + KV cache + graph pool (+ the
 * allocator's cache when measured); at the device's peak, the same plus vLLM's activation
 * figure. When APP also holds GE (APP is PTA reserved + GE rather than PTA reserved, as
 * memory_record shows), GE is taken out first, so it is not counted twice.
 */
public final class MsprofAppCheck implements DeviceRule {

    public static final String CHECK = "msprof_app_vs_vllm";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        MsprofEvidence m = ev.msprof();
        if (!m.present() || !"ready".equals(d.moment())) {
            return;
        }
        List<MsprofDeviceMap.Match> matches = MsprofDeviceMap.of(m, ev.layout()).matches(d.logicalDevice());
        if (matches.isEmpty()) {
            return;
        }
        String key = matches.get(0).key();
        MsprofSummary.DeviceMemory dm = matches.get(0).export().summary().device(key);
        Optional<MsprofSeries> app = dm.module(MsprofModules.APP);
        if (app.isEmpty()) {
            return;
        }
        Optional<Entry> w = d.get(Component.WEIGHTS).filter(Entry::known);
        Optional<Entry> kv = d.get(Component.KV_CACHE).filter(Entry::known);
        if (w.isEmpty() || kv.isEmpty()) {
            d.check(new Check(CHECK, Check.Status.SKIPPED, "vLLM's weights or KV cache figure is unknown: nothing to compare APP with"));
            return;
        }
        long vllm = w.get().bytes() + kv.get().bytes()
                + d.get(Component.GRAPH_POOL).filter(Entry::known).map(Entry::bytes).orElse(0L);
        String parts = "weights + KV cache" + (d.hasKnown(Component.GRAPH_POOL) ? " + graph pool" : "");
        List<String> out = new ArrayList<>();
        Check.Status status = Check.Status.SKIPPED;
        Optional<MsprofReading> appReady = m.readyUs().isPresent() ? MsprofReading.at(m, app.get(), "ready", "ready") : Optional.empty();
        if (appReady.isPresent()) {
            long a = appReady.get().bytes();
            long ge = value(m, dm.module(MsprofModules.GE), "ready");
            String geNote = "";
            Optional<MsprofSummary.MemoryRecordComponent> pta = dm.record("PTA");
            Optional<MsprofReading> ptaReserved = pta.map(MsprofSummary.MemoryRecordComponent::reserved)
                    .flatMap(s -> MsprofReading.at(m, s, "ready", "ready", true));
            if (ge > 0 && ptaReserved.isPresent()) {
                long p = ptaReserved.get().bytes();
                if (Math.abs(a - (p + ge)) < Math.abs(a - p)) {
                    a -= ge;
                    geNote = " (APP holds GE " + Units.mib(ge) + ", taken out)";
                } else {
                    geNote = " (APP matches PTA reserved " + Units.gib(p) + ": GE is outside it)";
                }
            } else if (ge > 0 && dm.app().flatMap(x -> MsprofReading.at(m, x, "ready", "ready")).isPresent()) {
                // npu_mem APP is the whole process: APP + HCCL + RUNTIME (+ GE when GE is not in APP)
                long proc = dm.app().flatMap(x -> MsprofReading.at(m, x, "ready", "ready")).get().bytes();
                long rest = value(m, dm.module("HCCL"), "ready") + value(m, dm.module("RUNTIME"), "ready")
                        + value(m, dm.module("ASCENDCL"), "ready");
                if (Math.abs(proc - (a + rest)) < Math.abs(proc - (a + rest + ge))) {
                    a -= ge;
                    geNote = " (APP holds GE " + Units.mib(ge) + ", taken out: npu_mem APP " + Units.gib(proc)
                            + " = APP + HCCL + runtime without GE)";
                } else {
                    geNote = " (npu_mem APP " + Units.gib(proc) + " has room for GE beside APP: GE is outside it)";
                }
            } else if (ge > 0) {
                geNote = " (GE " + Units.mib(ge) + " may be inside APP: no memory_record PTA or npu_mem APP to tell)";
            }
            long expected = vllm;
            String exp = parts;
            Optional<Entry> cache = d.get(Component.ALLOCATOR_CACHE).filter(Entry::known);
            if (cache.isPresent()) {
                expected += cache.get().bytes();
                exp += " + allocator cache";
            }
            long diff = a - expected;
            long tol = Math.max(a / 50, 64 * Units.MIB);
            status = Math.abs(diff) <= tol ? Check.Status.PASS : Check.Status.WARN;
            out.add("at ready APP " + Units.gib(a) + geNote + " vs vLLM's " + exp + " " + Units.gib(expected)
                    + ": difference " + Units.gib(diff)
                    + (status == Check.Status.PASS ? "" : " (more than 2%: a figure is missing or applies to another rank)"));
        }
        // the peak the ledger shows: the one at or after ready when there is one
        String peakMoment = dm.wholeDevice().map(dev -> MsprofPeakRule.shown(m, dev, key).moment())
                .orElse(MsprofPeakMoments.peak(key));
        Optional<MsprofReading> appPeak = MsprofReading.at(m, app.get(), peakMoment, "the device peak");
        Optional<Entry> act = d.get(Component.ACTIVATION_PEAK).filter(Entry::known);
        long a = appPeak.map(MsprofReading::bytes).orElse(app.get().peakBytes());
        String which = appPeak.isPresent() ? "at the device peak APP" : "APP's maximum over the window";
        long expected = vllm + act.map(Entry::bytes).orElse(0L);
        out.add(which + " " + Units.gib(a) + " vs vLLM's " + parts + (act.isPresent() ? " + start-up activation peak" : "")
                + " " + Units.gib(expected) + ": difference " + Units.gib(a - expected) + " (for reference: load is not vLLM's profile run)");
        d.check(new Check(CHECK, status, String.join("; ", out)));
    }

    private static long value(MsprofEvidence m, Optional<MsprofSeries> s, String moment) {
        return s.flatMap(x -> MsprofReading.at(m, x, moment, moment)).map(MsprofReading::bytes).orElse(0L);
    }
}

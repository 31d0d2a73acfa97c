package io.hbmledger.ledger.msprof;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.gpu.GpuComponents;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.Units;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * HCCL, CANN runtime and the other device modules from msprof's npu_module_mem, each the sum
 * of its components' values at the ledger's instant (measured when one component holds memory,
 * inferred with the sum shown when several do) (see {@link MsprofModules} for which
 * component goes where). Without a ready instant in the run the series maxima over the profiled
 * window are shown instead, and say so (these modules are allocated once at start-up, so the
 * maximum is usually the value at ready, but that is not measured).
 *
 * <p>Overlaps: vLLM's non-torch lump holds HCCL and the CANN runtime, so it is no longer counted
 * once msprof splits them out. The device-side modules (driver, logging, low power, task
 * scheduler) are resident before the server starts: when an idle baseline or the memory outside
 * every process is counted, they are inside it and are shown, not counted again.
 *
 * <p>Owner of hccl, cann_runtime and other_modules (their NVIDIA counterparts are
 * {@code GpuRuntimeRule}'s); refines vLLM's non_torch line, which holds them.
 */
public final class MsprofModulesRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        Optional<MsprofDeviceMap.Match> first = MsprofDeviceMap.atReady(ev, d);
        if (first.isPresent()) {
            measured(ev.msprof(), first.get(), d);
        }
        if (Accelerator.gpu(ev)) {
            return; // NVIDIA counterparts: GpuRuntimeRule
        }
        for (String c : List.of(Component.HCCL, Component.CANN_RUNTIME)) {
            if (d.get(c).isEmpty()) {
                d.decide(Entry.unknown(c, "needs msprof evidence (npu_module_mem); vLLM counts it in non-torch"));
            }
        }
    }

    private static void measured(MsprofEvidence m, MsprofDeviceMap.Match match, DeviceDraft d) {
        MsprofSummary.DeviceMemory dm = match.export().summary().device(match.key());
        if (dm.modules().isEmpty()) {
            return;
        }
        Map<String, List<MsprofSeries>> groups = new LinkedHashMap<>();
        for (MsprofSeries s : dm.modules().values()) {
            String c = MsprofModules.componentOf(s.component());
            if (c != null) {
                groups.computeIfAbsent(c, k -> new ArrayList<>()).add(s);
            }
        }
        String where = match.key() + " of " + match.export().name()
                + (dm.modules().values().iterator().next().deviceFromFolder() ? " (device from the device_N folder: the file has no device column)" : "");
        for (Map.Entry<String, List<MsprofSeries>> g : groups.entrySet()) {
            d.decide(entry(m, g.getKey(), g.getValue(), where, d));
        }
        if (d.hasKnownCounted(Component.HCCL) || d.hasKnownCounted(Component.CANN_RUNTIME)) {
            if (d.hasKnownCounted(Component.NON_TORCH)) {
                d.refine(Component.NON_TORCH, MsprofModulesRule.class,
                        "holds the HCCL buffers and CANN runtime that msprof measures separately, so not in the sum");
            }
        }
    }

    private static Entry entry(MsprofEvidence m, String component, List<MsprofSeries> series, String where,
                               DeviceDraft d) {
        long sum = 0;
        boolean allAtReady = true;
        List<Source> sources = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        List<String> terms = new ArrayList<>();
        List<String> zero = new ArrayList<>();
        String timing = null;
        List<String> stale = new ArrayList<>();
        String firstStale = null;
        for (MsprofSeries s : series) {
            MsprofReading r;
            Optional<MsprofReading> at = m.readyUs().isPresent()
                    ? MsprofReading.at(m, s, "ready", "ready") : Optional.empty();
            if (at.isPresent()) {
                r = at.get();
            } else {
                allAtReady = false;
                r = MsprofReading.peak(m, s, m.readyUs().isPresent()
                        ? MsprofReading.whyNot(s, m.readyUs().get(), "ready") : "the run gives no ready instant (" + m.readyHow() + ")");
            }
            if (r.stale()) {
                stale.add(s.component());
                firstStale = firstStale == null ? s.component() + ": " + r.note() : firstStale;
            } else if (timing == null) {
                timing = r.note();
            }
            sum += r.bytes();
            if (r.bytes() != 0) {
                sources.add(r.source());
                parts.add(s.component() + " " + Units.mib(r.bytes()));
                terms.add(s.component() + " " + r.bytes() + " B");
            } else {
                zero.add(s.component());
            }
        }
        if (sources.isEmpty()) {
            MsprofSeries s0 = series.get(0);
            sources.add(at(m, s0));
        }
        String what = switch (component) {
            case Component.HCCL -> "HCCL communication buffers";
            case Component.CANN_RUNTIME -> "CANN runtime in the serving process (RUNTIME, ASCENDCL, GE)";
            default -> "device modules outside the serving process's own allocations";
        };
        StringBuilder note = new StringBuilder(what).append(", msprof npu_module_mem ").append(where).append(": ");
        boolean many = component.equals(Component.OTHER_MODULES);
        if (parts.isEmpty()) {
            // every component read 0: say how many, not "all 0; 72 more at 0"
            note.append(many ? "all " + zero.size() + " components at 0" : "0 (" + String.join(", ", zero) + ")");
        } else {
            note.append(String.join(", ", parts));
            if (!zero.isEmpty()) {
                note.append(many ? "; " + zero.size() + " more at 0" : "; 0: " + String.join(", ", zero));
            }
        }
        if (timing != null) {
            note.append("; ").append(allAtReady ? "values at ready, e.g. " + timing : timing);
        } else {
            note.append("; values at ready");
        }
        if (stale.size() == 1) {
            // the old sample with its own time: still the value at ready, but it may predate ready's state
            note.append("; ").append(firstStale);
        } else if (stale.size() > 1) {
            note.append("; ").append(stale.size()).append(" components STALE at ready (")
                    .append(String.join(", ", stale.subList(0, Math.min(5, stale.size()))))
                    .append(stale.size() > 5 ? ", ..." : "").append("), e.g. ").append(firstStale);
        }
        // several components of one msprof sample added up are still that instrument's reading
        // (measured, as issue 3 asks of cann_runtime and other_modules); the sum is shown
        boolean added = terms.size() > 1;
        Entry e = new Entry(component, sum, Confidence.MEASURED, sources, note.toString(),
                allAtReady ? "ready" : null, true,
                added ? String.join(" + ", terms) + " = " + sum + " B (" + Units.gibOrMib(sum) + ")" : null);
        if (component.equals(Component.OTHER_MODULES)) {
            if (d.hasKnownCounted(Component.OUTSIDE_PROCESSES)) {
                e = e.notCounted("device-side modules are inside outside_processes (memory no process is charged for)");
            } else if (d.hasKnownCounted(Component.DRIVER_BASELINE)) {
                e = e.notCounted("device-side modules are resident before the server starts, so inside driver_baseline");
            }
        }
        return e;
    }

    private static Source at(MsprofEvidence m, MsprofSeries s) {
        return s.at("ready").map(m::source).orElse(m.source(s.peakFile(), s.peakRow(), s.peakText()));
    }
}

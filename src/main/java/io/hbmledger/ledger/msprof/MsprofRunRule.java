package io.hbmledger.ledger.msprof;

import io.hbmledger.evidence.msprof.MsprofOperatorTotals;
import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.evidence.msprof.MsprofTable;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.ProcessLevelEntry;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * msprof over the whole run: data that belongs to no device of the deployment goes to
 * {@code process_level} (rows whose device is {@code host} or missing, and devices whose ids
 * cannot be reconciled), never into a device's sum; devices of the deployment the export does
 * not cover, and exports without any memory table, make the run incomplete and are named.
 */
public final class MsprofRunRule implements RunRule {

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        MsprofEvidence m = ev.msprof();
        if (!m.present()) {
            return;
        }
        boolean any = m.exports().stream().anyMatch(e -> e.summary().hasMemoryEvidence());
        if (!any) {
            run.incomplete("the msprof export (" + String.join(", ", m.exports().stream().map(MsprofEvidence.Export::name).toList())
                    + ") holds no readable memory table (npu_mem, npu_module_mem, memory_record; see the notes):"
                    + " HCCL, CANN runtime and the peak under load are not measured; collect with --sys-hardware-mem=on");
        }
        MsprofDeviceMap map = MsprofDeviceMap.of(m, ev.layout());
        Set<Integer> missing = new TreeSet<>();
        for (DeviceLedger d : run.devices()) {
            if (d.deviceId() != null && map.matches(d.deviceId()).isEmpty()) {
                missing.add(d.deviceId());
            }
        }
        if (any && !missing.isEmpty()) {
            run.incomplete("the msprof export has no data for device(s) " + missing
                    + ": HCCL, CANN runtime and the peak are not measured there");
        }
        for (MsprofDeviceMap.Unmatched u : map.unmatched()) {
            run.note("msprof: " + u.why() + "; its data is listed under process_level, not in a device's ledger");
            for (MsprofSeries s : u.export().summary().series()) {
                if (u.key().equals(s.device())) {
                    run.processLevel(entry(m, s, u.key() + " of " + u.export().name() + " (not a device of the deployment)"));
                }
            }
        }
        for (MsprofEvidence.Export e : m.exports()) {
            for (MsprofSeries s : e.summary().processLevel()) {
                run.processLevel(entry(m, s, e.name() + ": rows without a device (host or empty)"));
            }
            for (MsprofOperatorTotals o : e.summary().processLevelOperators()) {
                run.processLevel(new ProcessLevelEntry("operator_memory", o.bytesTotal(), Confidence.MEASURED,
                        e.name() + ": rows without a device", List.of(m.source(o.file(), o.lastRow(), "sum of " + o.count() + " rows")),
                        "operator_memory: sum of " + o.count() + " operator allocations (not resident at once)"));
            }
        }
        if (m.readyFrom() != null && m.readyUs().isPresent()) {
            run.note(readyNote(m));
        }
        List<String> warnings = new ArrayList<>(m.warnings());
        m.exports().forEach(e -> warnings.addAll(e.summary().warnings()));
        for (int i = 0; i < Math.min(10, warnings.size()); i++) {
            run.note("msprof: " + warnings.get(i));
        }
        if (warnings.size() > 10) {
            run.note("msprof: " + (warnings.size() - 10) + " more warnings (see hbm-ledger evidence)");
        }
    }

    /**
     * What the msprof lines really read at ready. A ready instant outside the profiled window
     * leaves the sampled series (npu_mem, npu_module_mem) at their maxima, while memory_record,
     * written at each allocation and free, still has a last row before it: the note must not say
     * "taken at ready" for lines that are not. The series each device's msprof_timeline check
     * judges decides it, so the note and the checks agree.
     */
    private static String readyNote(MsprofEvidence m) {
        String at = MsprofReading.time(m.readyUs().get()) + " (" + m.readyFrom() + ")";
        int inside = 0;
        int outside = 0;
        for (MsprofEvidence.Export e : m.exports()) {
            for (String dev : e.summary().devices()) {
                MsprofSummary.DeviceMemory dm = e.summary().device(dev);
                MsprofSeries timed = dm.wholeDevice().orElse(dm.modules().isEmpty() ? null : dm.modules().values().iterator().next());
                if (timed == null || timed.firstTimestampUs() == null) {
                    continue;
                }
                if (MsprofReading.at(m, timed, "ready", "ready").isPresent()) {
                    inside++;
                } else {
                    outside++;
                }
            }
        }
        if (outside == 0) {
            return "msprof values at ready are taken at " + at;
        }
        String sampled = "npu_mem and npu_module_mem lines show maxima over the profiled window instead (see each"
                + " device's msprof_timeline check)";
        boolean events = m.exports().stream().anyMatch(e -> e.summary().tables().contains(MsprofTable.MEMORY_RECORD));
        return inside == 0
                ? "ready is " + at + ", outside every msprof export's profiled window: the " + sampled
                        + (events ? "; memory_record, written at each allocation and free, is read at its last row before ready" : "")
                : "msprof values at ready are taken at " + at + " where the profiled window covers it; elsewhere the "
                        + sampled;
    }

    private static ProcessLevelEntry entry(MsprofEvidence m, MsprofSeries s, String scope) {
        String component = switch (s.quantity()) {
            case MODULE_RESERVED_PEAK -> {
                String c = MsprofModules.componentOf(s.component());
                yield c == null ? "app" : c;
            }
            case STATIC_GRAPH_TOTAL -> "static_graph";
            case DEVICE_HBM_PEAK -> MsprofPeakRule.DEVICE_PEAK;
            case APP_HBM_PEAK -> "app";
            default -> s.quantity().contractName();
        };
        String what = s.quantity().contractName() + (s.component() == null ? "" : " " + s.component())
                + ": maximum over the profiled window" + (s.peakTimestampUs() == null ? "" : " at " + MsprofReading.time(s.peakTimestampUs()));
        return new ProcessLevelEntry(component, s.peakBytes(), Confidence.MEASURED, scope,
                List.of(m.source(s.peakFile(), s.peakRow(), s.peakText())), what);
    }
}

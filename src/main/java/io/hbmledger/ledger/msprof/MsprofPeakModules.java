package io.hbmledger.ledger.msprof;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.Units;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What npu_module_mem held at a device's peak, grouped as the ledger's lines (APP, HCCL, CANN
 * runtime, other modules; see {@link MsprofModules}), each beside its value at ready: which
 * module grew between ready and the peak. An explanation of the peak, never an entry of the sum:
 * the peak is not resident at ready.
 *
 * @param atPeak bytes per group at the peak (groups whose every series was read there)
 * @param growth bytes per group at the peak minus at ready (groups read at both)
 * @param lag how long before the peak the module samples were taken (the oldest), or null
 * @param missing groups with a series that has no sample at the peak
 */
public record MsprofPeakModules(Map<String, Long> atPeak, Map<String, Long> growth, Long lag, List<String> missing) {

    static final String APP = "APP";
    private static final List<String> ORDER = List.of(APP, "HCCL", "CANN runtime", "other modules");

    /**
     * The modules of a device at the named peak moment; empty when the export has no
     * npu_module_mem for the device or none of its series was sampled before the peak.
     */
    static Optional<MsprofPeakModules> of(MsprofEvidence m, MsprofSummary.DeviceMemory dm, String peakMoment) {
        Map<String, Long> atPeak = new LinkedHashMap<>();
        Map<String, Long> atReady = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        List<String> noReady = new ArrayList<>();
        Long lag = null;
        for (MsprofSeries s : dm.modules().values()) {
            String g = group(s.component());
            Optional<MsprofReading> p = MsprofReading.at(m, s, peakMoment, "the peak");
            if (p.isEmpty()) {
                missing.add(g);
                continue;
            }
            atPeak.merge(g, p.get().bytes(), Long::sum);
            long age = s.at(peakMoment).map(v -> v.ageUs()).orElse(0L);
            lag = lag == null ? age : Math.max(lag, age);
            Optional<MsprofReading> r = m.readyUs().isPresent() ? MsprofReading.at(m, s, "ready", "ready") : Optional.empty();
            if (r.isPresent()) {
                atReady.merge(g, r.get().bytes(), Long::sum);
            } else {
                noReady.add(g);
            }
        }
        atPeak.keySet().removeAll(missing);
        if (atPeak.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Long> growth = new LinkedHashMap<>();
        for (String g : ORDER) {
            if (atPeak.containsKey(g) && atReady.containsKey(g) && !noReady.contains(g)) {
                growth.put(g, atPeak.get(g) - atReady.get(g));
            }
        }
        Map<String, Long> ordered = new LinkedHashMap<>();
        ORDER.stream().filter(atPeak::containsKey).forEach(g -> ordered.put(g, atPeak.get(g)));
        return Optional.of(new MsprofPeakModules(ordered, growth, lag, missing.stream().distinct().toList()));
    }

    private static String group(String module) {
        String c = MsprofModules.componentOf(module);
        if (c == null) {
            return APP;
        }
        return switch (c) {
            case Component.HCCL -> "HCCL";
            case Component.CANN_RUNTIME -> "CANN runtime";
            default -> "other modules";
        };
    }

    /** "npu_module_mem at the peak: APP 2.93 GiB (+1.46 GiB since ready), HCCL 400.0 MiB (unchanged), ..." with when they were sampled. */
    String held() {
        return held("npu_module_mem at the peak: ", "since ready", "unchanged")
                + (lag == null ? "" : lag < 1000 ? " (module samples within 1 ms before the peak)"
                : " (module samples up to " + MsprofReading.ms(lag) + " before the peak)")
                + (missing.isEmpty() ? "" : "; no sample before the peak for " + String.join(", ", missing));
    }

    /** The same for a start-up peak: "npu_module_mem then: APP 3.91 GiB (+2.44 GiB over ready), HCCL 400.0 MiB (as at ready)". */
    String then() {
        return held("npu_module_mem then: ", "over ready", "as at ready");
    }

    private String held(String prefix, String vsReady, String same) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Long> e : atPeak.entrySet()) {
            Long g = growth.get(e.getKey());
            parts.add(e.getKey() + " " + size(e.getValue())
                    + (g == null ? "" : g == 0 ? " (" + same + ")" : " (" + signed(g) + " " + vsReady + ")"));
        }
        return prefix + String.join(", ", parts);
    }

    /** "APP +1.46 GiB, CANN runtime +100.0 MiB; unchanged: HCCL, other modules", or empty without values at ready. */
    Optional<String> grew() {
        if (growth.isEmpty()) {
            return Optional.empty();
        }
        List<String> changed = new ArrayList<>();
        List<String> same = new ArrayList<>();
        growth.forEach((g, b) -> {
            if (b == 0) {
                same.add(g);
            } else {
                changed.add(g + " " + signed(b));
            }
        });
        return Optional.of("npu_module_mem grew from ready to the peak: " + (changed.isEmpty() ? "no module" : String.join(", ", changed))
                + (same.isEmpty() ? "" : "; unchanged: " + String.join(", ", same)));
    }

    /** HCCL and the runtime are hundreds of MiB, APP tens of GiB. */
    static String size(long bytes) {
        return Units.gibOrMib(bytes);
    }

    private static String signed(long bytes) {
        return (bytes > 0 ? "+" : "") + size(bytes);
    }
}

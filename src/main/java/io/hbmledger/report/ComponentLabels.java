package io.hbmledger.report;

import io.hbmledger.ledger.Component;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Column headings for ledger components where a table across devices has no room for the full names. */
final class ComponentLabels {

    private static final Map<String, String> SHORT = Map.ofEntries(
            Map.entry(Component.DRIVER_BASELINE, "driver"),
            Map.entry(Component.KV_CACHE, "kv"),
            Map.entry(Component.GRAPH_POOL, "graph"),
            Map.entry(Component.ACTIVATION_PEAK, "act"),
            Map.entry(Component.NON_TORCH, "nontorch"),
            Map.entry(Component.CANN_RUNTIME, "cann"),
            Map.entry(Component.OTHER_MODULES, "othmod"),
            Map.entry(Component.ALLOCATOR_CACHE, "alloc"),
            Map.entry(Component.OTHER_PROCESSES, "others"),
            Map.entry(Component.PROFILE_PEAK_REST, "act+nt"),
            Map.entry(Component.TORCH_ALLOCATED, "torch"),
            Map.entry(Component.SERVER_PROCESSES, "server"),
            Map.entry(Component.OUTSIDE_PROCESSES, "outside"),
            Map.entry("activation_peak_under_load", "act@load"));

    private ComponentLabels() {
    }

    /** The heading of a component's column: a short name, or the component itself when it is short. */
    static String shortName(String component) {
        return SHORT.getOrDefault(component, component);
    }

    /** {@code short = full name} for the shortened headings among these components, or empty. */
    static String legend(List<String> components) {
        List<String> parts = new ArrayList<>();
        for (String c : components) {
            String s = shortName(c);
            if (!s.equals(c)) {
                parts.add(s + " = " + c);
            }
        }
        return String.join(", ", parts);
    }
}

package io.hbmledger.report;

import io.hbmledger.ledger.Layout;

/** The lines every view of a ledger starts with (text summary, detail view, HTML). */
final class ReportHeading {

    private ReportHeading() {
    }

    /** {@code deployment: MODEL  TP n  DP n  devices [..]}, as the detail view has always printed it. */
    static String deployment(Layout layout) {
        StringBuilder dep = new StringBuilder("deployment:");
        if (layout.model() != null) {
            dep.append(' ').append(layout.model());
        }
        dep.append(layout.model() == null ? " TP " : "  TP ").append(layout.tp())
                .append(layout.pp() > 1 ? "  PP " + layout.pp() : "").append("  DP ").append(layout.dp())
                .append("  devices ").append(layout.devices()).append(layout.origin() != null
                        ? " (" + (layout.devicesGiven() ? "" : "devices assumed; ") + layout.origin() + ")"
                        : layout.devicesGiven() ? "" : " (assumed)");
        return dep.toString();
    }

    /**
     * A text as the user should read it: paths under the run directory shown relative to it
     * (the run directory is named once, in the heading).
     */
    static String relative(String text, String run) {
        if (text == null || run == null || run.isEmpty()) {
            return text;
        }
        String prefix = run.endsWith("/") ? run : run + "/";
        return text.replace(prefix, "");
    }
}

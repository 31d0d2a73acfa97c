package io.hbmledger.ledger;

import java.util.Locale;

/** Formatting of byte amounts for notes and arithmetic: GiB with two decimals, MiB whole. */
public final class Units {

    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    private Units() {
    }

    public static String gib(long bytes) {
        return gibNumber(bytes) + " GiB";
    }

    /**
     * GiB with two decimals. {@code 0.00} means exactly zero: an amount that rounds to zero is
     * {@code <0.01} or {@code -<0.01}, so a small negative residual is not shown as "-0.00" and a
     * few MiB are not shown as nothing.
     */
    public static String gibNumber(long bytes) {
        // below half of 0.01 GiB, "%.2f" would print 0.00 (or -0.00)
        if (bytes != 0 && Math.abs(bytes) <= GIB / 200 && Math.abs(bytes) * 200 < GIB) {
            return bytes < 0 ? "-<0.01" : "<0.01";
        }
        return String.format(Locale.ROOT, "%.2f", bytes / (double) GIB);
    }

    /** GiB from 1 GiB on, MiB below: a 1 MiB difference is not shown as "0.00 GiB". */
    public static String gibOrMib(long bytes) {
        return Math.abs(bytes) >= GIB ? gib(bytes) : mib(bytes);
    }

    public static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) MIB);
    }
}

package io.hbmledger.ledger;

import java.util.Locale;

/** Formatting of byte amounts for notes and arithmetic: GiB with two decimals, MiB whole. */
public final class Units {

    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    private Units() {
    }

    public static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) GIB);
    }

    public static String gibNumber(long bytes) {
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

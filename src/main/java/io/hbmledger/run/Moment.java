package io.hbmledger.run;

import java.util.Locale;
import java.util.Optional;

/**
 * When a piece of evidence was taken (docs/run.schema.json, {@code evidence[].moment}).
 * The names are the lower-case forms used in run.json and on the command line.
 */
public enum Moment {
    /** Idle devices before the server started. */
    BASELINE,
    /** Server ready, before any request. */
    READY,
    /** During the workload. */
    LOAD,
    /** After the workload, server still up. */
    AFTER,
    /** A server log covering start-up. */
    STARTUP,
    /** The evidence of a failed start (out of memory). */
    OOM,
    /** Checkpoint files and configs, true at any moment. */
    STATIC;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Moment> parse(String s) {
        if (s == null) {
            return Optional.empty();
        }
        for (Moment m : values()) {
            if (m.jsonName().equals(s.trim().toLowerCase(Locale.ROOT))) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** The accepted names, for error messages. */
    public static String names() {
        StringBuilder b = new StringBuilder();
        for (Moment m : values()) {
            b.append(b.length() == 0 ? "" : ", ").append(m.jsonName());
        }
        return b.toString();
    }
}

package io.hbmledger.ledger;

import java.util.Locale;

/** How sure a ledger line is (report-v1 {@code confidence}), strongest first. */
public enum Confidence {
    /** A device or profiler reading. */
    MEASURED,
    /** Bytes from file headers. */
    EXACT,
    /** The serving engine's own figure. */
    REPORTED,
    /** Derived from other entries; the entry shows the arithmetic. */
    INFERRED,
    /** Rules or formulas (sharding from tensor names, config.json arithmetic). */
    ESTIMATED,
    /** No evidence: the amount is null, never 0. */
    UNKNOWN;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package io.hbmledger.run;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * The wall-clock instants of a run: run.json {@code moments} (written by collect as each phase
 * begins) and analyze's {@code --instant NAME=TIME} for evidence files. msprof stamps its samples
 * in microseconds since the Unix epoch, so an instant is only usable with its offset: a local
 * time without one would be read hours off on any host not in UTC.
 */
public final class RunInstants {

    /** The moments collect records, in phase order; --instant accepts these names. */
    public static final List<String> NAMES = List.of("baseline", "start", "ready", "load_start", "load_end", "after",
            "stop", "export", "copy");

    /** The accepted time format, for messages. */
    public static final String FORMAT = "ISO-8601 with an offset or Z (2026-11-29T21:03:04.120+08:00,"
            + " 2026-11-29T13:03:04.120Z)";

    private RunInstants() {
    }

    /** Microseconds since the Unix epoch, or empty when the text is not ISO-8601 with an offset. */
    public static Optional<Long> epochUs(String iso) {
        if (iso == null) {
            return Optional.empty();
        }
        Instant t;
        try {
            t = OffsetDateTime.parse(iso.trim()).toInstant();
        } catch (DateTimeParseException e) {
            try {
                t = Instant.parse(iso.trim());
            } catch (DateTimeParseException e2) {
                return Optional.empty();
            }
        }
        return Optional.of(Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000L));
    }
}

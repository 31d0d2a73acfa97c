package io.hbmledger.collect.nodes;

import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.Host;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How far a node's wall clock is from the collector's: {@code date +%s%3N} on the node, read
 * between two local readings; the node's reading is taken to belong to their midpoint, so the
 * offset is known to within half the round trip.
 *
 * @param offsetMs node clock minus collector clock, in milliseconds
 * @param roundTripMs the two local readings apart (command start-up included), in milliseconds
 */
record ClockOffset(long offsetMs, long roundTripMs) {

    /** The node's offset, or null when its {@code date} did not answer with milliseconds since the epoch. */
    static ClockOffset measure(Host host) throws IOException {
        long before = System.currentTimeMillis();
        CommandResult r = host.run(List.of("date", "+%s%3N"), Map.of(), Duration.ofSeconds(20));
        long after = System.currentTimeMillis();
        String text = r.ok() ? r.stdoutText().strip() : "";
        if (!text.matches("\\d{10,}")) {
            return null;
        }
        return new ClockOffset(Long.parseLong(text) - (before + (after - before) / 2), after - before);
    }

    /** As written to run.json under {@code nodes[].clock}. */
    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("offset_ms", offsetMs);
        m.put("round_trip_ms", roundTripMs);
        return m;
    }
}

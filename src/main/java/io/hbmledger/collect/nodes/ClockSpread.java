package io.hbmledger.collect.nodes;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The clocks of a run's nodes taken together, for run.json {@code clock}: the spread of the offsets
 * (largest minus smallest, at start and at end) and the skew (the largest change of one node's
 * offset between start and end), in milliseconds; the round trip bounds how exact they are.
 */
final class ClockSpread {

    private ClockSpread() {
    }

    static Map<String, Object> of(Map<String, Map<String, ClockOffset>> byNode) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("unit", "ms");
        for (String when : new String[] {"start", "end"}) {
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            long rtt = 0;
            for (Map<String, ClockOffset> node : byNode.values()) {
                ClockOffset o = node.get(when);
                if (o != null) {
                    lo = Math.min(lo, o.offsetMs());
                    hi = Math.max(hi, o.offsetMs());
                    rtt = Math.max(rtt, o.roundTripMs());
                }
            }
            if (lo <= hi) {
                m.put("spread_" + when + "_ms", hi - lo);
                m.put("max_round_trip_" + when + "_ms", rtt);
            }
        }
        Long skew = null;
        for (Map<String, ClockOffset> node : byNode.values()) {
            ClockOffset a = node.get("start");
            ClockOffset b = node.get("end");
            if (a != null && b != null) {
                long d = Math.abs(b.offsetMs() - a.offsetMs());
                skew = skew == null ? d : Math.max(skew, d);
            }
        }
        if (skew != null) {
            m.put("skew_ms", skew);
        }
        return m;
    }
}

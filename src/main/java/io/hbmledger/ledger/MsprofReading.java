package io.hbmledger.ledger;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofValueAt;
import java.time.Instant;
import java.util.Optional;

/**
 * The value of an msprof series at the ledger's instant, lined up on the wall clock: msprof and
 * torch_npu write sample times in microseconds since the Unix epoch (the host's real-time
 * clock; CANN profiling guide, "Timestamp(us)"), and run.json {@code moments} are ISO-8601
 * wall-clock instants, so both compare directly when taken on the same host.
 *
 * @param bytes the value
 * @param source where it was written
 * @param moment {@code ready}, {@code peak}, or null for a maximum over the whole window
 * @param note what the number is and when it was sampled
 */
record MsprofReading(long bytes, Source source, String moment, String note) {

    /** A sample older than this before the instant is not taken as the value at it. */
    static final long STALE_US = 2_000_000L;

    /**
     * The last sample at or before the named instant, when the series covers it: empty when the
     * instant lies before the first sample or well after the last one (a clock or file mismatch).
     */
    static Optional<MsprofReading> at(MsprofEvidence m, MsprofSeries s, String moment, String label) {
        return at(m, s, moment, label, false);
    }

    /**
     * As {@link #at(MsprofEvidence, MsprofSeries, String, String)}; {@code eventLog} for tables
     * written at each allocation or free (memory_record), whose last row holds until the next
     * one however old it is.
     */
    static Optional<MsprofReading> at(MsprofEvidence m, MsprofSeries s, String moment, String label, boolean eventLog) {
        Optional<MsprofValueAt> v = s.at(moment);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        MsprofValueAt x = v.get();
        long limit = Math.max(STALE_US, s.maxGapUs() == null ? 0 : 2 * s.maxGapUs());
        if (!eventLog && x.ageUs() > limit) {
            return Optional.empty();
        }
        return Optional.of(new MsprofReading(x.bytes(), m.source(x), label,
                "sampled at " + time(x.timestampUs()) + ", " + ms(x.ageUs()) + " before " + label));
    }

    /** Why {@link #at} found nothing: the instant against the series' time span. */
    static String whyNot(MsprofSeries s, long instantUs, String label) {
        if (s.firstTimestampUs() == null) {
            return "the series has no timestamps";
        }
        if (instantUs < s.firstTimestampUs()) {
            return label + " (" + time(instantUs) + ") is before the first sample (" + time(s.firstTimestampUs())
                    + "): profiling started later, or the clocks differ";
        }
        return label + " (" + time(instantUs) + ") is " + ms(instantUs - s.lastTimestampUs())
                + " after the last sample (" + time(s.lastTimestampUs()) + "): profiling stopped earlier, or the clocks differ";
    }

    /** The series maximum over the whole profiled window. */
    static MsprofReading peak(MsprofEvidence m, MsprofSeries s, String why) {
        String when = s.peakTimestampUs() == null ? "" : " at " + time(s.peakTimestampUs());
        return new MsprofReading(s.peakBytes(), m.source(s.peakFile(), s.peakRow(), s.peakText()), null,
                "maximum over the profiled window" + when + " (" + why + ")");
    }

    static String time(long epochUs) {
        return Instant.ofEpochSecond(Math.floorDiv(epochUs, 1_000_000L), Math.floorMod(epochUs, 1_000_000L) * 1000L).toString();
    }

    static String ms(long us) {
        if (Math.abs(us) >= 10_000_000L) {
            return String.format(java.util.Locale.ROOT, "%.1f s", us / 1e6);
        }
        return String.format(java.util.Locale.ROOT, "%.0f ms", us / 1e3);
    }
}

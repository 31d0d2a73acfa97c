package io.hbmledger.ledger.msprof;

import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofValueAt;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.Source;
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
 * @param stale true when the sample is older than {@link #staleLimitUs} before the instant: still
 *     the value at it (nothing newer was sampled), but it may predate what happened just before
 */
public record MsprofReading(long bytes, Source source, String moment, String note, boolean stale) {

    /**
     * A sample older than this (or than two of the series' largest gaps) before the instant is
     * not taken as the value at it: the instant lies past the end of the profiled window.
     */
    static final long TOO_OLD_US = 2_000_000L;

    /** The least age that makes a sample stale: see {@link #staleLimitUs}. */
    static final long STALE_FLOOR_US = 1_000_000L;

    /**
     * How old the last sample before an instant may be and still stand for the value at it:
     * max(5 x the series' typical interval, 1 s). The typical interval is the mean one over
     * the run (time span / (samples - 1)), which the one-pass summary has for free; msprof
     * samples at a fixed rate (--sys-hardware-mem-freq, 50 Hz = 20 ms by default), so the mean
     * is that rate unless stalls fill much of the run, and then the sampling check already
     * warns (a median would need every gap kept, or a histogram updated per sample on the hot
     * path). Five intervals leave room for the jitter of a busy host's sampler (a few
     * intervals late now and then); the 1 s floor is how well the ready instant itself is
     * known: collect takes it after /health and /v1/models answer, polled every 300 ms with
     * 2 s probes, so a sample under a second old cannot be told from one at ready. Older than
     * that, msprof took no sample in between (stalled or lagging), and the value may be from
     * before the last start-up step (e.g. graph capture).
     */
    public static long staleLimitUs(MsprofSeries s) {
        long typical = s.meanIntervalUs().map(Math::round).orElse(0L);
        return Math.max(STALE_FLOOR_US, 5 * typical);
    }

    /**
     * The last sample at or before the named instant, when the series covers it: empty when the
     * instant lies before the first sample or well after the last one (a clock or file mismatch).
     */
    public static Optional<MsprofReading> at(MsprofEvidence m, MsprofSeries s, String moment, String label) {
        return at(m, s, moment, label, false);
    }

    /**
     * As {@link #at(MsprofEvidence, MsprofSeries, String, String)}; {@code eventLog} for tables
     * written at each allocation or free (memory_record), whose last row holds until the next
     * one however old it is.
     */
    public static Optional<MsprofReading> at(MsprofEvidence m, MsprofSeries s, String moment, String label, boolean eventLog) {
        Optional<MsprofValueAt> v = s.at(moment);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        MsprofValueAt x = v.get();
        long limit = Math.max(TOO_OLD_US, s.maxGapUs() == null ? 0 : 2 * s.maxGapUs());
        if (!eventLog && x.ageUs() > limit) {
            return Optional.empty();
        }
        // an event log's last row holds until the next allocation or free: its age says nothing
        boolean stale = !eventLog && x.ageUs() > staleLimitUs(s);
        String note = "sampled at " + time(x.timestampUs()) + ", " + ms(x.ageUs()) + " before " + label;
        if (stale) {
            note += ": STALE, older than " + ms(staleLimitUs(s)) + " (max(5 x the series' typical interval "
                    + s.meanIntervalUs().map(i -> ms(Math.round(i))).orElse("?") + ", 1 s)): msprof took no sample of this"
                    + " series in the " + ms(x.ageUs()) + " before " + label + " (sampling stalled or lagged on a busy"
                    + " host), so the value may be from before the last start-up step (e.g. graph capture)";
        }
        return Optional.of(new MsprofReading(x.bytes(), m.source(x), label, note, stale));
    }

    /** Why {@link #at} found nothing: the instant against the series' time span. */
    public static String whyNot(MsprofSeries s, long instantUs, String label) {
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
    public static MsprofReading peak(MsprofEvidence m, MsprofSeries s, String why) {
        String when = s.peakTimestampUs() == null ? "" : " at " + time(s.peakTimestampUs());
        return new MsprofReading(s.peakBytes(), m.source(s.peakFile(), s.peakRow(), s.peakText()), null,
                "maximum over the profiled window" + when + " (" + why + ")", false);
    }

    public static String time(long epochUs) {
        return Instant.ofEpochSecond(Math.floorDiv(epochUs, 1_000_000L), Math.floorMod(epochUs, 1_000_000L) * 1000L).toString();
    }

    public static String ms(long us) {
        if (Math.abs(us) >= 10_000_000L) {
            return String.format(java.util.Locale.ROOT, "%.1f s", us / 1e6);
        }
        return String.format(java.util.Locale.ROOT, "%.0f ms", us / 1e3);
    }
}

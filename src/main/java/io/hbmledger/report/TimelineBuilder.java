package io.hbmledger.report;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.msprof.MsprofQuantity;
import io.hbmledger.evidence.msprof.MsprofSeries;
import io.hbmledger.evidence.msprof.MsprofValueAt;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.run.Moment;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the {@link Timeline} from what the evidence holds: every npu-smi / nvidia-smi sample of
 * a ledger device, and the msprof npu_mem device series at the run's instants and at its peak
 * (the streaming msprof pass keeps these, not every sample). Pure: no I/O.
 */
public final class TimelineBuilder {

    /** A line with more points is down-sampled to this many (the highest of each bucket kept). */
    static final int MAX_POINTS = 400;

    private static final Map<Moment, String> INSTANT_OF = Map.of(Moment.BASELINE, "baseline", Moment.STARTUP, "start",
            Moment.READY, "ready", Moment.LOAD, "load_end", Moment.AFTER, "after");

    private TimelineBuilder() {
    }

    /**
     * @param runMoments the run's instants as written in run.json {@code moments} (ISO-8601), may be empty
     */
    public static Timeline build(EvidenceSet ev, Ledger ledger, Map<String, String> runMoments) {
        Map<String, Long> instants = instants(ev.msprof(), runMoments);
        boolean timed = !instants.isEmpty();
        List<Timeline.Line> lines = new ArrayList<>();
        List<Timeline.Mark> marks = new ArrayList<>();
        instants.forEach((name, us) -> marks.add(new Timeline.Mark(name, us, null)));
        for (DeviceLedger d : ledger.devices()) {
            if (d.deviceId() != null) {
                smi(ev, d, instants, timed).ifPresent(lines::add);
            }
            if (timed) {
                for (MsprofEvidence.Export x : ev.msprof().exports()) {
                    for (MsprofSeries s : x.summary().series()) {
                        if (s.quantity() == MsprofQuantity.DEVICE_HBM_PEAK && sameDevice(s.device(), d)) {
                            lines.add(msprof(ev.msprof(), s, d.device()));
                            if (s.peakTimestampUs() != null) {
                                marks.add(new Timeline.Mark("peak", s.peakTimestampUs(), d.device()));
                            }
                        }
                    }
                }
            }
        }
        return new Timeline(lines, marks, timed);
    }

    private static Map<String, Long> instants(MsprofEvidence m, Map<String, String> runMoments) {
        if (!m.momentsUs().isEmpty()) {
            return m.momentsUs();
        }
        Map<String, Long> out = new LinkedHashMap<>();
        runMoments.forEach((name, iso) -> {
            try {
                Instant t = Instant.parse(iso);
                out.put(name, t.getEpochSecond() * 1_000_000L + t.getNano() / 1000);
            } catch (DateTimeParseException e) {
                // an instant that cannot be read is left off the picture; the ledger already warns about it
            }
        });
        return out;
    }

    private static java.util.Optional<Timeline.Line> smi(EvidenceSet ev, DeviceLedger d, Map<String, Long> instants, boolean timed) {
        List<Timeline.Point> points = new ArrayList<>();
        String kind = null;
        for (EvidenceSet.FileInfo f : ev.files()) {
            if (!f.format().isDeviceSample() || f.moment() == null) {
                continue;
            }
            Long x = timed ? instants.get(INSTANT_OF.get(f.moment())) : Long.valueOf(f.moment().ordinal());
            if (x == null) {
                continue;
            }
            List<List<TaggedObservation>> samples = ev.smiSamples(f, d.deviceId());
            for (int i = 0; i < samples.size(); i++) {
                for (TaggedObservation t : samples.get(i)) {
                    if (isUsed(t.quantity()) && t.o().bytes() != null) {
                        // samples of one file share its moment; keep their order visible
                        points.add(new Timeline.Point(x + i, t.o().bytes(), f.moment().jsonName(), t.source()));
                        kind = t.format().family() == io.hbmledger.evidence.EvidenceFormat.Family.NVIDIA_SMI ? "nvidia-smi" : "npu-smi";
                        break;
                    }
                }
            }
        }
        points.sort(Comparator.comparingLong(Timeline.Point::x));
        return points.isEmpty() ? java.util.Optional.empty()
                : java.util.Optional.of(new Timeline.Line(d.device(), kind, downSample(points, MAX_POINTS)));
    }

    private static boolean isUsed(Quantity q) {
        return q == Quantity.HBM_USED || q == Quantity.MEMORY_USED || q == Quantity.FB_USED;
    }

    private static Timeline.Line msprof(MsprofEvidence m, MsprofSeries s, String device) {
        List<Timeline.Point> points = new ArrayList<>();
        for (MsprofValueAt v : s.at().values()) {
            points.add(new Timeline.Point(v.timestampUs(), v.bytes(), "at " + v.moment(), m.source(v)));
        }
        if (s.peakTimestampUs() != null) {
            points.add(new Timeline.Point(s.peakTimestampUs(), s.peakBytes(), "peak",
                    m.source(s.peakFile(), (int) s.peakRow(), s.peakText())));
        }
        points.sort(Comparator.comparingLong(Timeline.Point::x));
        return new Timeline.Line(device, "msprof npu_mem", downSample(points, MAX_POINTS));
    }

    /** msprof names devices {@code npu:N}; the ledger's key is {@code npu:N/chip:C} or {@code device:N}. */
    private static boolean sameDevice(String msprofDevice, DeviceLedger d) {
        if (msprofDevice == null) {
            return false;
        }
        return d.device().equals(msprofDevice) || d.device().startsWith(msprofDevice + "/")
                || msprofDevice.equals("npu:" + d.deviceId()) && !d.device().startsWith("npu:");
    }

    /**
     * At most max points: the points split into equal buckets, the highest of each kept (a peak
     * is what a memory picture must not lose), first and last always kept.
     */
    static List<Timeline.Point> downSample(List<Timeline.Point> points, int max) {
        if (points.size() <= max) {
            return points;
        }
        List<Timeline.Point> out = new ArrayList<>();
        out.add(points.get(0));
        int inner = max - 2;
        double size = (points.size() - 2) / (double) inner;
        for (int b = 0; b < inner; b++) {
            int from = 1 + (int) Math.floor(b * size);
            int to = Math.min(points.size() - 1, 1 + (int) Math.floor((b + 1) * size));
            Timeline.Point best = null;
            for (int i = from; i < to; i++) {
                if (best == null || points.get(i).bytes() > best.bytes()) {
                    best = points.get(i);
                }
            }
            if (best != null) {
                out.add(best);
            }
        }
        out.add(points.get(points.size() - 1));
        return out;
    }
}

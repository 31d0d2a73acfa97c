package io.hbmledger.evidence.msprof;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One summarised series: one quantity on one device for one component (npu_module_mem module,
 * memory_record component, static graph id), read in one streaming pass. All amounts are
 * bytes, all times microseconds since the Unix epoch.
 *
 * @param quantity what was measured
 * @param device {@code npu:<id>}, or null when the rows name no device ({@code host}, missing):
 *     such a series is process-level and never belongs in a device's sum
 * @param deviceFromFolder true when the file has no device column and the device was taken
 *     from its {@code device_N} folder name
 * @param component module / component / graph id, null for npu_mem
 * @param peakBytes the maximum
 * @param peakText the maximum as written
 * @param peakFile the file holding the maximum (slices of one table are joined)
 * @param peakRow the data row (header excluded) or rowid of the maximum
 * @param peakTimestampUs when the maximum was sampled, null when the table has no times
 * @param samples values read
 * @param firstTimestampUs earliest sample time, null without times
 * @param lastTimestampUs latest sample time, null without times
 * @param maxGapUs the largest gap between consecutive samples in file order, null below 2 samples
 * @param at value at each moment asked for; a moment before the first sample has no entry
 * @param windowPeak the maximum over the samples at or after the pass's window start
 *     ({@link MsprofPass#windowFrom}, e.g. ready), null when no window was asked for or no
 *     timed sample fell in it
 */
public record MsprofSeries(MsprofQuantity quantity, String device, boolean deviceFromFolder, String component,
                           long peakBytes, String peakText, String peakFile, long peakRow, Long peakTimestampUs,
                           long samples, Long firstTimestampUs, Long lastTimestampUs, Long maxGapUs,
                           Map<String, MsprofValueAt> at, MsprofWindowPeak windowPeak) {

    public MsprofSeries {
        at = Map.copyOf(at);
    }

    /** A series read without a window. */
    public MsprofSeries(MsprofQuantity quantity, String device, boolean deviceFromFolder, String component,
                        long peakBytes, String peakText, String peakFile, long peakRow, Long peakTimestampUs,
                        long samples, Long firstTimestampUs, Long lastTimestampUs, Long maxGapUs,
                        Map<String, MsprofValueAt> at) {
        this(quantity, device, deviceFromFolder, component, peakBytes, peakText, peakFile, peakRow, peakTimestampUs,
                samples, firstTimestampUs, lastTimestampUs, maxGapUs, at, null);
    }

    /** Mean sampling interval in microseconds; empty below 2 timed samples. */
    public Optional<Double> meanIntervalUs() {
        if (samples < 2 || firstTimestampUs == null || lastTimestampUs == null) {
            return Optional.empty();
        }
        return Optional.of((lastTimestampUs - firstTimestampUs) / (double) (samples - 1));
    }

    /**
     * True when a peak may have been missed: the largest gap between samples exceeds
     * {@code limitUs} (e.g. 100 ms against msprof's usual 20 ms), or there is at most one sample.
     */
    public boolean tooCoarse(long limitUs) {
        return maxGapUs == null || maxGapUs > limitUs;
    }

    public Optional<MsprofValueAt> at(String moment) {
        return Optional.ofNullable(at.get(moment));
    }

    /** Same quantity, device and component: the series to join across slices. */
    boolean sameSeries(MsprofSeries o) {
        return quantity == o.quantity && java.util.Objects.equals(device, o.device)
                && java.util.Objects.equals(component, o.component);
    }

    /**
     * Joins the series of the next slice file ({@code _slice_1} after {@code _slice_0}).
     */
    MsprofSeries join(MsprofSeries next) {
        boolean nextPeak = next.peakBytes > peakBytes;
        Map<String, MsprofValueAt> joinedAt = new LinkedHashMap<>(at);
        for (Map.Entry<String, MsprofValueAt> e : next.at.entrySet()) {
            MsprofValueAt mine = joinedAt.get(e.getKey());
            if (mine == null || e.getValue().timestampUs() >= mine.timestampUs()) {
                joinedAt.put(e.getKey(), e.getValue());
            }
        }
        Long gap = maxGapUs;
        if (next.maxGapUs != null) {
            gap = gap == null ? next.maxGapUs : Math.max(gap, next.maxGapUs);
        }
        // strictly greater: on a tie the earlier slice's sample stays, as in one sequential read
        MsprofWindowPeak win = next.windowPeak != null && (windowPeak == null || next.windowPeak.bytes() > windowPeak.bytes())
                ? next.windowPeak : windowPeak;
        if (lastTimestampUs != null && next.firstTimestampUs != null) {
            long between = next.firstTimestampUs - lastTimestampUs;
            gap = gap == null ? between : Math.max(gap, between);
        }
        return new MsprofSeries(quantity, device, deviceFromFolder && next.deviceFromFolder, component,
                nextPeak ? next.peakBytes : peakBytes, nextPeak ? next.peakText : peakText,
                nextPeak ? next.peakFile : peakFile, nextPeak ? next.peakRow : peakRow,
                nextPeak ? next.peakTimestampUs : peakTimestampUs, samples + next.samples,
                min(firstTimestampUs, next.firstTimestampUs), max(lastTimestampUs, next.lastTimestampUs), gap,
                joinedAt, win);
    }

    private static Long min(Long a, Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(Math.min(a, b));
    }

    private static Long max(Long a, Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(Math.max(a, b));
    }

    /** Joins lists of series file after file, keeping first-seen order. */
    static List<MsprofSeries> joinAll(List<List<MsprofSeries>> perFile) {
        List<MsprofSeries> out = new ArrayList<>();
        for (List<MsprofSeries> file : perFile) {
            for (MsprofSeries s : file) {
                int i = indexOf(out, s);
                if (i < 0) {
                    out.add(s);
                } else {
                    out.set(i, out.get(i).join(s));
                }
            }
        }
        return out;
    }

    private static int indexOf(List<MsprofSeries> list, MsprofSeries s) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).sameSeries(s)) {
                return i;
            }
        }
        return -1;
    }
}

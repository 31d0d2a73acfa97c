package io.hbmledger.evidence.msprof;

/**
 * The moments at a device's own peaks, under which a pass keeps every series' value there
 * ({@link MsprofPass#withDeviceMoment}). The npu_mem-only first pass finds the peaks; the
 * reader of the whole export asks for these moments; the ledger's msprof rules look values up
 * by the same names.
 */
public final class MsprofPeakMoments {

    private MsprofPeakMoments() {
    }

    /** The moment under which every series' value at a device's peak is kept ({@code peak@npu:0}). */
    public static String peak(String msprofDevice) {
        return "peak@" + msprofDevice;
    }

    /** The moment under which every series' value at a device's peak at or after ready is kept. */
    public static String peakAfterReady(String msprofDevice) {
        return "peak_after_ready@" + msprofDevice;
    }

    /**
     * {@code pass} with each device's peaks of {@code npuMem} (a pass over npu_mem) added as that
     * device's moments. +1 us: a peak's own time is kept in whole microseconds while samples
     * carry fractions (".586"), so the instant itself would fall just before its sample.
     */
    public static MsprofPass addPeaks(MsprofPass pass, MsprofSummary npuMem) {
        MsprofPass out = pass;
        for (MsprofSeries s : npuMem.series()) {
            if (s.quantity() != MsprofQuantity.DEVICE_HBM_PEAK || s.device() == null) {
                continue;
            }
            if (s.peakTimestampUs() != null) {
                out = out.withDeviceMoment(peak(s.device()), s.device(), s.peakTimestampUs() + 1);
            }
            if (s.windowPeak() != null) {
                out = out.withDeviceMoment(peakAfterReady(s.device()), s.device(), s.windowPeak().timestampUs() + 1);
            }
        }
        return out;
    }
}

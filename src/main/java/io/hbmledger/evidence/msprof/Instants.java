package io.hbmledger.evidence.msprof;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The instants one pass reports each series' value at, and where its window maximum (the peak
 * after ready) starts. An instant either applies to every series (the run's moments) or only to the series of
 * one device (that device's peak): each sample is compared with every instant it may belong to
 * on the hot path, so with 16 devices a per-device peak kept for all series would cost 16
 * compares (and up to 16 byte copies) per npu_module_mem row instead of one.
 */
final class Instants {

    /** No window: {@code tsNs >= windowFromNs} never holds for a real sample. */
    static final long NO_WINDOW = Long.MAX_VALUE;

    static final Instants NONE = new Instants(new String[0], new long[0], new int[0], NO_WINDOW, null);

    /** Instant names, in the order of {@link #ns}. */
    final String[] names;
    /** Instants in nanoseconds since the epoch (sample times are nanoseconds). */
    final long[] ns;
    /** Device id each instant belongs to, {@link #ALL} for every series. */
    private final int[] device;
    /** Samples at or after this count for the window maximum; {@link #NO_WINDOW} for none. */
    final long windowFromNs;
    /** The moment that starts the window, null for none. */
    final String windowFrom;

    static final int ALL = Integer.MIN_VALUE;

    private Instants(String[] names, long[] ns, int[] device, long windowFromNs, String windowFrom) {
        this.names = names;
        this.ns = ns;
        this.device = device;
        this.windowFromNs = windowFromNs;
        this.windowFrom = windowFrom;
    }

    /** The instants of a pass; moments named in {@code deviceOf} apply only to that device's series. */
    static Instants of(MsprofPass pass) {
        Map<String, Long> moments = pass.momentsUs();
        String[] names = moments.keySet().toArray(String[]::new);
        long[] ns = new long[names.length];
        int[] dev = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            ns[i] = Math.multiplyExact(moments.get(names[i]), 1000L);
            String key = pass.deviceOf().get(names[i]);
            dev[i] = key == null ? ALL : deviceId(key);
        }
        Long from = pass.windowFrom() == null ? null : moments.get(pass.windowFrom());
        return new Instants(names, ns, dev, from == null ? NO_WINDOW : Math.multiplyExact(from, 1000L),
                from == null ? null : pass.windowFrom());
    }

    /** The instants that apply to the series of one device (-1: rows without a device). */
    Instants forDevice(int deviceId) {
        boolean all = true;
        for (int d : device) {
            all &= d == ALL || d == deviceId;
        }
        if (all) {
            return this;
        }
        List<Integer> keep = new ArrayList<>();
        for (int i = 0; i < device.length; i++) {
            if (device[i] == ALL || device[i] == deviceId) {
                keep.add(i);
            }
        }
        String[] n = new String[keep.size()];
        long[] t = new long[keep.size()];
        int[] d = new int[keep.size()];
        for (int i = 0; i < n.length; i++) {
            n[i] = names[keep.get(i)];
            t[i] = ns[keep.get(i)];
            d[i] = device[keep.get(i)];
        }
        return new Instants(n, t, d, windowFromNs, windowFrom);
    }

    /** {@code npu:3} -> 3; a key that names no number matches no row's device. */
    private static int deviceId(String key) {
        try {
            return Integer.parseInt(key.substring(key.indexOf(':') + 1).trim());
        } catch (RuntimeException e) {
            return Integer.MIN_VALUE + 1;
        }
    }
}

package io.hbmledger.evidence;

/** What no device can hold: a figure beyond it is a misread (swapped columns, a mangled number), never memory. */
public final class PhysicalBounds {

    /**
     * No accelerator holds more than 1 TiB (the largest have 192 GB of HBM), in bytes: one device
     * figure or one allocation above it is a misread, e.g. a timestamp in microseconds read as a
     * size in KB (1.7e18 bytes).
     */
    public static final long DEVICE_BYTES = 1L << 40;

    private PhysicalBounds() {
    }
}

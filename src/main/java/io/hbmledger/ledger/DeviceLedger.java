package io.hbmledger.ledger;

import java.util.List;

/**
 * The ledger of one device at one moment.
 *
 * @param device npu-smi key such as {@code npu:0/chip:1}, or {@code device:<id>} when no
 *     npu-smi row matched
 * @param deviceId the logical device id the server used (ASCEND_RT_VISIBLE_DEVICES order)
 * @param ranks worker ranks that ran on this device
 * @param moment the instant this ledger explains ({@code ready}, {@code oom}, ...)
 * @param capacity device capacity, or null source and bytes when unknown
 * @param used device memory in use at the moment, or null when unknown
 * @param residualBytes used minus the counted known entries; null when used is unknown
 * @param residualNote what the residual can hold here
 */
public record DeviceLedger(String device, Integer deviceId, List<Integer> ranks, String moment,
                           Amount capacity, Amount used, List<Entry> entries,
                           Long residualBytes, String residualNote, List<Check> checks) {

    public DeviceLedger {
        ranks = List.copyOf(ranks);
        entries = List.copyOf(entries);
        checks = List.copyOf(checks);
    }

    /** Sum of the counted known entries, or null when no entry is counted. */
    public Long countedSum() {
        long sum = 0;
        boolean any = false;
        for (Entry e : entries) {
            if (e.known() && e.counted()) {
                sum += e.bytes();
                any = true;
            }
        }
        return any ? sum : null;
    }

    /**
     * Capacity or used: an amount with its source, or unknown (bytes and source null) with a note.
     *
     * @param confidence measured when read as is from a sample, inferred when worked out from
     *     other numbers (then {@code arithmetic} shows how), unknown when bytes is null
     * @param arithmetic the calculation with its inputs for an inferred amount; null otherwise
     */
    public record Amount(Long bytes, Source source, String note, Confidence confidence, String arithmetic) {

        public Amount {
            if ((bytes == null) != (confidence == Confidence.UNKNOWN)) {
                throw new IllegalArgumentException("bytes must be null exactly when confidence is unknown");
            }
            if (confidence == Confidence.INFERRED && arithmetic == null) {
                throw new IllegalArgumentException("an inferred amount shows its arithmetic");
            }
        }

        /** An amount read as is from a sample (measured), or unknown when bytes is null. */
        public Amount(Long bytes, Source source, String note) {
            this(bytes, source, note, bytes == null ? Confidence.UNKNOWN : Confidence.MEASURED, null);
        }

        /** An amount worked out from other numbers, with the arithmetic that shows how. */
        public static Amount inferred(long bytes, Source source, String note, String arithmetic) {
            return new Amount(bytes, source, note, Confidence.INFERRED, arithmetic);
        }

        public static Amount unknown(String note) {
            return new Amount(null, null, note);
        }

        public boolean known() {
            return bytes != null;
        }
    }
}

package io.hbmledger.diff;

import java.util.List;

/**
 * Two runs side by side.
 *
 * @param a the first run as named
 * @param b the second run as named
 * @param changes the settings that differ (or that only one side states)
 * @param devices the device pairs, by physical device
 * @param onlyA devices only the first run has
 * @param onlyB devices only the second run has
 * @param notes sentences about the pairing and the evidence
 */
public record Diff(String a, String b, List<Change> changes, List<DevicePair> devices, List<String> onlyA, List<String> onlyB,
                   List<String> notes) {

    public Diff {
        changes = List.copyOf(changes);
        devices = List.copyOf(devices);
        onlyA = List.copyOf(onlyA);
        onlyB = List.copyOf(onlyB);
        notes = List.copyOf(notes);
    }

    /**
     * A setting that changed.
     *
     * @param setting the engine-argument name
     * @param a the first run's value, or null when it does not say
     * @param b the second run's value, or null
     * @param sourceA where the first value was read
     * @param sourceB where the second value was read
     */
    public record Change(String setting, String a, String b, String sourceA, String sourceB) {
    }

    public record DevicePair(String device, Integer idA, Integer idB, List<Row> rows) {
        public DevicePair {
            rows = List.copyOf(rows);
        }
    }

    /**
     * One component: both amounts, the delta and what explains it.
     *
     * @param delta b - a in bytes, null when either is unknown
     * @param deltaConfidence the two sides' confidence when equal; the weaker with {@code mixed} true otherwise
     * @param mixed true when the sides' confidences differ
     * @param expected the delta the changed settings predict, bytes, or null when they predict none
     * @param explanation what the evidence says about the delta, or null when nothing changed
     */
    public record Row(String component, Long a, String confidenceA, Long b, String confidenceB, Long delta, String deltaConfidence,
                      boolean mixed, Long expected, String explanation) {
    }
}

package io.hbmledger.evidence.msprof;

import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What one pass over an export asks of its files.
 *
 * @param momentsUs named instants (microseconds since the Unix epoch) at which series' values are
 *     reported (the last sample at or before each)
 * @param deviceOf moments that belong to one device (its peak): moment name to device key
 *     ({@code npu:3}); such a moment is reported for that device's series only
 * @param tables the tables to read: CSV files of other tables are skipped after their header, and
 *     SQLite files query only these (so a first pass can read npu_mem alone)
 * @param windowFrom a moment of {@code momentsUs} (e.g. {@code ready}) from which each series'
 *     maximum is also kept ({@link MsprofSeries#windowPeak}): the peak under load when start-up
 *     went higher; null for none
 */
public record MsprofPass(Map<String, Long> momentsUs, Map<String, String> deviceOf, Set<MsprofTable> tables,
                         String windowFrom) {

    public MsprofPass {
        momentsUs = Collections.unmodifiableMap(new LinkedHashMap<>(momentsUs));
        deviceOf = Map.copyOf(deviceOf);
        tables = tables.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(tables));
    }

    /** Every table, values at the given run-wide instants. */
    public static MsprofPass of(Map<String, Long> momentsUs) {
        return new MsprofPass(momentsUs, Map.of(), EnumSet.allOf(MsprofTable.class), null);
    }

    /** The same pass reading only {@code only}. */
    public MsprofPass onlyTables(Set<MsprofTable> only) {
        return new MsprofPass(momentsUs, deviceOf, only, windowFrom);
    }

    /** The same pass with one more instant that belongs to one device's series only. */
    public MsprofPass withDeviceMoment(String name, String deviceKey, long instantUs) {
        Map<String, Long> m = new LinkedHashMap<>(momentsUs);
        m.put(name, instantUs);
        Map<String, String> d = new LinkedHashMap<>(deviceOf);
        d.put(name, deviceKey);
        return new MsprofPass(m, d, tables, windowFrom);
    }

    /**
     * The same pass keeping each series' maximum over the samples at or after {@code moment}
     * too; a moment the pass does not have keeps no window.
     */
    public MsprofPass withWindowFrom(String moment) {
        return new MsprofPass(momentsUs, deviceOf, tables, moment);
    }

    boolean reads(MsprofTable t) {
        return tables.contains(t);
    }
}

package io.hbmledger.evidence.msprof;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a header line of an msprof / torch_npu memory CSV says: which table it is, where each
 * needed column sits, and the unit of each amount column, taken from the header only
 * ({@code (KB)} = KiB, {@code (MB)} = MiB).
 *
 * @param table the table this header belongs to
 * @param columns column name (lower case, unit removed) to 0-based index
 * @param units column name to bytes per written unit, for amount columns
 * @param fieldCount number of header fields
 * @param unknown header names this reader does not know (ignored, reported as a warning)
 */
record CsvLayout(MsprofTable table, Map<String, Integer> columns, Map<String, Long> units,
                 int fieldCount, List<String> unknown) {

    static final String DEVICE_ID = "device_id";
    static final String DEVICE = "device";
    static final String DEVICE_TYPE = "device type";
    static final String COMPONENT = "component";
    static final String TIMESTAMP = "timestamp";
    static final String EVENT = "event";
    static final String HBM = "hbm";
    static final String TOTAL_ALLOCATED = "total allocated";
    static final String TOTAL_RESERVED = "total reserved";
    static final String TOTAL_ACTIVE = "total active";
    static final String NAME = "name";
    static final String SIZE = "size";
    static final String ALLOCATION_TIME = "allocation time";
    static final String RELEASE_TIME = "release time";
    static final String OP_NAME = "op name";
    static final String GRAPH_ID = "graph id";

    /** Every column name seen in the documented and real layouts; others draw a warning. */
    private static final Set<String> KNOWN = Set.of(
            DEVICE_ID, DEVICE, DEVICE_TYPE, COMPONENT, TIMESTAMP, EVENT, "ddr", HBM, "memory",
            TOTAL_ALLOCATED, TOTAL_RESERVED, TOTAL_ACTIVE, "stream ptr", NAME, SIZE,
            ALLOCATION_TIME, RELEASE_TIME, "active release time", "duration", "active duration",
            "allocation total allocated", "allocation total reserved", "allocation total active",
            "release total allocated", "release total reserved", "release total active",
            OP_NAME, "model name", GRAPH_ID, "node index start", "node index end");

    private static final Set<String> AMOUNTS = Set.of("ddr", HBM, "memory", TOTAL_ALLOCATED,
            TOTAL_RESERVED, TOTAL_ACTIVE, SIZE);

    /**
     * Recognises a header line (without its line ending).
     *
     * @return empty when the header is not one of the msprof memory tables
     */
    static Optional<CsvLayout> parse(String headerLine) {
        String line = headerLine;
        if (line.startsWith("\uFEFF")) {
            line = line.substring(1);
        }
        if (line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
        }
        String[] names = line.split(",", -1);
        Map<String, Integer> columns = new HashMap<>();
        Map<String, Long> units = new HashMap<>();
        Map<String, String> unitText = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            String raw = names[i].trim();
            if (raw.length() >= 2 && raw.startsWith("\"") && raw.endsWith("\"")) {
                raw = raw.substring(1, raw.length() - 1).trim();
            }
            String unit = null;
            String name = raw;
            int open = raw.lastIndexOf('(');
            if (open > 0 && raw.endsWith(")")) {
                unit = raw.substring(open + 1, raw.length() - 1).trim();
                name = raw.substring(0, open).trim();
            }
            name = name.toLowerCase(Locale.ROOT);
            if (!KNOWN.contains(name)) {
                unknown.add(raw);
                continue;
            }
            columns.putIfAbsent(name, i);
            if (AMOUNTS.contains(name) && unit != null) {
                unitText.put(name, unit);
                Long bytes = unitBytes(unit);
                if (bytes != null) {
                    units.put(name, bytes);
                }
            }
        }
        MsprofTable table = classify(columns.keySet());
        if (table == null) {
            return Optional.empty();
        }
        return Optional.of(new CsvLayout(table, Map.copyOf(columns), Map.copyOf(units), names.length,
                List.copyOf(unknown)));
    }

    private static MsprofTable classify(Set<String> c) {
        if (c.contains(EVENT) && c.contains(HBM) && c.contains(TIMESTAMP)) {
            return MsprofTable.NPU_MEM;
        }
        if (c.contains(COMPONENT) && c.contains(TIMESTAMP) && c.contains(TOTAL_RESERVED)) {
            return c.contains(TOTAL_ALLOCATED) || c.contains(TOTAL_ACTIVE)
                    ? MsprofTable.MEMORY_RECORD : MsprofTable.NPU_MODULE_MEM;
        }
        if (c.contains(NAME) && c.contains(SIZE) && c.contains(ALLOCATION_TIME)) {
            return MsprofTable.OPERATOR_MEMORY;
        }
        if (c.contains(OP_NAME) && c.contains(GRAPH_ID) && c.contains(SIZE)) {
            return MsprofTable.STATIC_OP_MEM;
        }
        return null;
    }

    /** Bytes per unit as the exporters write them: binary multiples (they divide by 1024). */
    static Long unitBytes(String unit) {
        switch (unit.toUpperCase(Locale.ROOT)) {
            case "B":
            case "BYTE":
            case "BYTES":
                return 1L;
            case "KB":
            case "KIB":
                return 1024L;
            case "MB":
            case "MIB":
                return 1024L * 1024;
            case "GB":
            case "GIB":
                return 1024L * 1024 * 1024;
            default:
                return null;
        }
    }

    /** Index of a column, or -1. */
    int col(String name) {
        Integer i = columns.get(name);
        return i == null ? -1 : i;
    }

    /** Bytes per unit of an amount column, or 0 when the header gives no usable unit. */
    long unit(String name) {
        Long u = units.get(name);
        return u == null ? 0 : u;
    }

    /** The first device column present: Device_id, Device, Device Type; -1 when none. */
    int deviceColumn() {
        for (String n : new String[] {DEVICE_ID, DEVICE, DEVICE_TYPE}) {
            if (columns.containsKey(n)) {
                return columns.get(n);
            }
        }
        return -1;
    }
}

package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.Quote;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One streaming pass over each memory table of an msprof ({@code msprof_*.db}) or torch_npu
 * ({@code ascend_pytorch_profiler_*.db}) SQLite export. Amounts are bytes and times
 * nanoseconds (CANN msprof db schema 1.x: NPU_MEM, NPU_MODULE_MEM, MEMORY_RECORD, OP_MEMORY);
 * type, component and module ids are resolved through STRING_IDS and ENUM_MODULE.
 *
 * <p>The file is opened read-only and, unless a non-empty {@code -wal} file sits beside it,
 * as immutable: no lock, no {@code -shm} is created, so exports on read-only media or of a
 * profiler still holding the file open are read as they are. A non-empty WAL holds committed
 * pages not yet in the main file, and applying it needs a {@code -shm} file: then the database and
 * its WAL are copied to a temporary directory and read there, so that reading never adds a file to
 * the run directory (issue 14: a {@code -shm} appeared even under {@code analyze --no-write}); if
 * that fails it falls back to immutable with a warning.
 */
final class DbScan {

    /** The row number of a DB sample is its rowid. */
    record TableTally(MsprofTable table, Tally tally) {
    }

    record Result(List<TableTally> tables, List<String> warnings, Set<MsprofTable> absent) {
    }

    private DbScan() {
    }

    /**
     * Reads the memory tables of one database that {@code tables} names; a table left out is
     * neither read nor reported absent.
     */
    static Result scan(Path file, String display, Instants instants, Set<MsprofTable> tables)
            throws EvidenceException, IOException {
        List<String> warnings = new ArrayList<>();
        Path wal = file.resolveSibling(file.getFileName() + "-wal");
        boolean walPending = Files.isRegularFile(wal) && Files.size(wal) > 0;
        try {
            if (walPending) {
                try {
                    return scanCopy(file, wal, display, instants, tables, warnings);
                } catch (SQLException | IOException e) {
                    warnings.add("the -wal file beside the database could not be applied (" + e.getMessage()
                            + "); read the main file only: changes not yet checkpointed are missing");
                }
            }
            return scanWith(file, display, instants, tables, "mode=ro&immutable=1", warnings);
        } catch (SQLException e) {
            throw new EvidenceException(display, 0, "cannot read as an msprof SQLite export: " + e.getMessage()
                    + "; expected an msprof_*.db or ascend_pytorch_profiler_*.db file");
        } catch (UnsatisfiedLinkError | ExceptionInInitializerError | NoClassDefFoundError e) {
            throw new EvidenceException(display, 0, "the SQLite native library could not be loaded (" + e
                    + "); its temporary directory must allow executables: set "
                    + "HBM_LEDGER_JAVA_OPTS=-Dorg.sqlite.tmpdir=DIR with a writable, exec-allowed DIR");
        }
    }

    private static Result scanCopy(Path file, Path wal, String display, Instants instants, Set<MsprofTable> tables,
                                   List<String> warnings) throws SQLException, IOException {
        Path dir = Files.createTempDirectory("hbm-ledger-db");
        Path copy = dir.resolve("export.db");
        try {
            Files.copy(file, copy);
            Files.copy(wal, dir.resolve("export.db-wal"));
            return scanWith(copy, display, instants, tables, "mode=ro", warnings);
        } finally {
            try (java.util.stream.Stream<Path> left = Files.list(dir)) {
                for (Path p : left.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static Result scanWith(Path file, String display, Instants instants, Set<MsprofTable> tables,
                                   String query, List<String> warnings) throws SQLException {
        String url;
        try {
            url = "jdbc:sqlite:" + new URI("file", null, file.toAbsolutePath().toString(), query, null);
        } catch (URISyntaxException e) {
            throw new SQLException("path cannot be written as a URI: " + e.getMessage(), e);
        }
        org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
        config.setReadOnly(true);
        try (Connection c = DriverManager.getConnection(url, config.toProperties())) {
            Map<String, Set<String>> schema = schema(c);
            if (schema.isEmpty()) {
                throw new SQLException("no tables");
            }
            boolean strings = schema.containsKey("STRING_IDS");
            boolean modules = schema.containsKey("ENUM_MODULE");
            List<TableTally> out = new ArrayList<>();
            Set<MsprofTable> absent = java.util.EnumSet.noneOf(MsprofTable.class);
            Map<MsprofTable, String> sql = new EnumMap<>(MsprofTable.class);
            sql.put(MsprofTable.NPU_MEM, "SELECT m.rowid, "
                    + (strings ? "COALESCE(s.value, CAST(m.type AS TEXT))" : "CAST(m.type AS TEXT)")
                    + ", m.hbm, m.timestampNs, m.deviceId FROM NPU_MEM m"
                    + (strings ? " LEFT JOIN STRING_IDS s ON s.id = m.type" : ""));
            sql.put(MsprofTable.NPU_MODULE_MEM, "SELECT m.rowid, "
                    + (modules ? "COALESCE(e.name, CAST(m.moduleId AS TEXT))" : "CAST(m.moduleId AS TEXT)")
                    + ", m.totalReserved, m.timestampNs, m.deviceId FROM NPU_MODULE_MEM m"
                    + (modules ? " LEFT JOIN ENUM_MODULE e ON e.id = m.moduleId" : ""));
            sql.put(MsprofTable.MEMORY_RECORD, "SELECT r.rowid, "
                    + (strings ? "COALESCE(s.value, CAST(r.component AS TEXT))" : "CAST(r.component AS TEXT)")
                    + ", r.totalAllocated, r.totalReserved, r.totalActive, r.timestamp, r.deviceId FROM MEMORY_RECORD r"
                    + (strings ? " LEFT JOIN STRING_IDS s ON s.id = r.component" : ""));
            sql.put(MsprofTable.OPERATOR_MEMORY, "SELECT rowid, size, releaseTime, deviceId FROM OP_MEMORY");
            Map<MsprofTable, List<String>> needs = Map.of(
                    MsprofTable.NPU_MEM, List.of("type", "hbm", "timestampns", "deviceid"),
                    MsprofTable.NPU_MODULE_MEM, List.of("moduleid", "totalreserved", "timestampns", "deviceid"),
                    MsprofTable.MEMORY_RECORD, List.of("component", "totalallocated", "totalreserved", "totalactive",
                            "timestamp", "deviceid"),
                    MsprofTable.OPERATOR_MEMORY, List.of("size", "releasetime", "deviceid"));
            for (Map.Entry<MsprofTable, String> q : sql.entrySet()) {
                MsprofTable t = q.getKey();
                if (!tables.contains(t)) {
                    continue;
                }
                Set<String> cols = schema.get(t.dbTable());
                if (cols == null) {
                    absent.add(t);
                    continue;
                }
                List<String> missing = needs.get(t).stream().filter(n -> !cols.contains(n)).toList();
                if (!missing.isEmpty()) {
                    warnings.add("table " + t.dbTable() + " lacks columns " + missing + "; table skipped");
                    absent.add(t);
                    continue;
                }
                Tally tally = new Tally(instants);
                try (Statement st = c.createStatement()) {
                    st.setFetchSize(4096);
                    try (ResultSet rs = st.executeQuery(q.getValue())) {
                        switch (t) {
                            case OPERATOR_MEMORY -> operators(rs, tally);
                            case MEMORY_RECORD -> memoryRecord(rs, tally);
                            default -> sampled(t, rs, tally);
                        }
                    }
                } catch (SQLException e) {
                    warnings.add("table " + t.dbTable() + " after row " + tally.rows + ": " + e.getMessage()
                            + "; the rows before were used");
                }
                out.add(new TableTally(t, tally));
            }
            if (tables.contains(MsprofTable.STATIC_OP_MEM)) {
                absent.add(MsprofTable.STATIC_OP_MEM);
            }
            if (schema.containsKey(NPU_OP_MEM) && tables.containsAll(java.util.EnumSet.allOf(MsprofTable.class))) {
                warnings.add(notRead(c));
            }
            return new Result(out, warnings, absent);
        }
    }

    /** A table both msprof and torch_npu databases hold that evidence-v1 has no quantity for. */
    static final String NPU_OP_MEM = "NPU_OP_MEM";

    /**
     * NPU_OP_MEM holds one row per operator memory allocation or free (operatorName, addr, type,
     * size, timestampNs, with the pool's running totalAllocate / totalReserve; CANN msprof db
     * schema). evidence-v1 names no quantity for it, so it is not read; it is named, with its
     * row count, so that its absence from every figure is never silent.
     */
    private static String notRead(Connection c) throws SQLException {
        long rows;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + NPU_OP_MEM)) {
            rows = rs.next() ? rs.getLong(1) : 0;
        }
        return "table " + NPU_OP_MEM + " (" + rows + " rows: operator memory allocations and frees with the memory"
                + " pool's running totals) is present and not read: evidence-v1 has no quantity for it, so none of its"
                + " rows is in any figure";
    }

    private static Map<String, Set<String>> schema(Connection c) throws SQLException {
        Map<String, Set<String>> tables = new java.util.HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table'")) {
            while (rs.next()) {
                tables.put(rs.getString(1), new HashSet<>());
            }
        }
        for (Map.Entry<String, Set<String>> t : tables.entrySet()) {
            if (!t.getKey().matches("[A-Za-z_][A-Za-z0-9_]*")) {
                continue;
            }
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("PRAGMA table_info(" + t.getKey() + ")")) {
                while (rs.next()) {
                    t.getValue().add(rs.getString("name").toLowerCase(Locale.ROOT));
                }
            }
        }
        return tables;
    }

    private static void sampled(MsprofTable t, ResultSet rs, Tally tally) throws SQLException {
        while (rs.next()) {
            long row = rs.getLong(1);
            tally.rows++;
            String group = rs.getString(2);
            Object v = rs.getObject(3);
            long ts = rs.getLong(4);
            boolean tsNull = rs.wasNull();
            Object dev = rs.getObject(5);
            int device = dev instanceof Number n ? n.intValue() : -1;
            MsprofQuantity q = MsprofQuantity.MODULE_RESERVED_PEAK;
            String component = group;
            if (t == MsprofTable.NPU_MEM) {
                String type = group == null ? "" : group.toLowerCase(Locale.ROOT);
                if (type.equals("app")) {
                    q = MsprofQuantity.APP_HBM_PEAK;
                } else if (type.equals("device")) {
                    q = MsprofQuantity.DEVICE_HBM_PEAK;
                } else {
                    tally.warn(row, "type " + Quote.of(String.valueOf(group)) + " is neither app nor device; row ignored");
                    continue;
                }
                component = null;
            }
            add(tally, q, device, component, v, tsNull ? SeriesStats.NONE : ts, row);
        }
    }

    private static void memoryRecord(ResultSet rs, Tally tally) throws SQLException {
        MsprofQuantity[] qs = {MsprofQuantity.ALLOCATED_PEAK, MsprofQuantity.RESERVED_PEAK, MsprofQuantity.ACTIVE_PEAK};
        while (rs.next()) {
            long row = rs.getLong(1);
            tally.rows++;
            String component = rs.getString(2);
            long ts = rs.getLong(6);
            long tsNs = rs.wasNull() ? SeriesStats.NONE : ts;
            Object dev = rs.getObject(7);
            int device = dev instanceof Number n ? n.intValue() : -1;
            for (int i = 0; i < 3; i++) {
                add(tally, qs[i], device, component, rs.getObject(3 + i), tsNs, row);
            }
        }
    }

    private static void add(Tally tally, MsprofQuantity q, int device, String component, Object v, long tsNs,
                            long row) {
        if (v == null) {
            return; // NULL is absent, not 0
        }
        long bytes = bytes(v);
        if (bytes == Numbers.INVALID || bytes == Numbers.OUT_OF_RANGE) {
            byte[] t = v.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            tally.warn(row, q.contractName() + " value " + Numbers.refused(t, 0, t.length, bytes) + "; value ignored");
            return;
        }
        if (bytes < 0) {
            // tables of the SQLite export hold bytes: the mark is -1 itself
            String text = v instanceof Double d ? java.math.BigDecimal.valueOf(d).toPlainString() : v.toString();
            if (Numbers.minusOne(text)) {
                tally.minusOne(row);
            } else {
                tally.warn(row, Numbers.negative(q.contractName() + " value", text));
            }
            return;
        }
        // a REAL column prints as written in plain digits (423690240.0, not 4.2369024E8)
        String text = v instanceof Double d ? java.math.BigDecimal.valueOf(d).toPlainString() : v.toString();
        if (tally.beyondAnyDevice(bytes, row, q.contractName() + " value", () -> text)) {
            return;
        }
        tally.stats(q, device, component).add(bytes, tsNs, row, () -> text);
    }

    /**
     * A cell as whole bytes: INTEGER as is, REAL rounded, TEXT parsed as a decimal number
     * (with the CSV reader's length cap); {@link Numbers#INVALID} or
     * {@link Numbers#OUT_OF_RANGE} otherwise.
     */
    private static long bytes(Object v) {
        if (v instanceof Long || v instanceof Integer) {
            return ((Number) v).longValue();
        }
        if (v instanceof Number n) {
            double d = n.doubleValue();
            // Math.round would saturate 1e300 to Long.MAX_VALUE: a made-up 8 EiB
            return Double.isNaN(d) ? Numbers.INVALID : Math.abs(d) < 0x1p63 ? Math.round(d) : Numbers.OUT_OF_RANGE;
        }
        byte[] t = v.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return Numbers.amount(t, 0, t.length, 1);
    }

    private static void operators(ResultSet rs, Tally tally) throws SQLException {
        while (rs.next()) {
            long row = rs.getLong(1);
            tally.rows++;
            Object size = rs.getObject(2);
            long bytes = size instanceof Number ? bytes(size) : Numbers.INVALID;
            if (bytes == Numbers.INVALID || bytes == Numbers.OUT_OF_RANGE) {
                byte[] t = String.valueOf(size).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                tally.warn(row, "size " + Numbers.refused(t, 0, t.length, bytes) + "; row ignored");
                continue;
            }
            rs.getObject(3);
            boolean unreleased = rs.wasNull();
            Object dev = rs.getObject(4);
            int device = dev instanceof Number d ? d.intValue() : -1;
            tally.addOperator(device, bytes, unreleased, row, String.valueOf(size));
        }
    }
}

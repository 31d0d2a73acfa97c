package io.hbmledger.load;

import io.hbmledger.evidence.msprof.MsprofTable;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The profiling session an msprof file outside its export folder belongs to, from its name: the
 * part before the table's name. msprof and torch_npu name a table's file after the table
 * ({@code npu_module_mem.csv}, {@code npu_mem_20250109102030.csv}, {@code ascend_pytorch_profiler_0.db}),
 * so files of one export copied out of their folder share that part (empty); files of several
 * sessions put in one folder have to be told apart by a prefix
 * ({@code level1_rank0_npu_module_mem.csv} beside {@code server_rank0_npu_module_mem.csv}), and
 * that prefix is the session. What follows the table's name (msprof's export time, a
 * {@code _slice_N}) is left out: the tables of one export are not all written in the same second.
 * Pure: a name in, a name out.
 */
final class LooseSession {

    /** A table's name as a whole word of a CSV file's name. */
    private static final Pattern CSV_TABLE;
    /** The name a SQLite export starts with (MsprofExportWalker: msprof_*.db, ascend_pytorch_profiler_*.db). */
    private static final Pattern DB_TABLE = Pattern.compile("(?:^|[_\\-.])(msprof|ascend_pytorch_profiler)(?=$|[_\\-.])");

    static {
        StringBuilder alternatives = new StringBuilder();
        for (MsprofTable t : MsprofTable.values()) {
            alternatives.append(alternatives.length() == 0 ? "" : "|").append(Pattern.quote(t.csvStem()));
        }
        CSV_TABLE = Pattern.compile("(?:^|[_\\-.])(" + alternatives + ")(?=$|[_\\-.])");
    }

    private LooseSession() {
    }

    /** The session part of a file name: empty for a name as msprof / torch_npu write it. */
    static String of(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        String stem = lower.replaceFirst("\\.(csv|db)$", "");
        Matcher m = (lower.endsWith(".db") ? DB_TABLE : CSV_TABLE).matcher(stem);
        int at = -1;
        while (m.find()) {
            at = m.start(1); // the last: a prefix may hold a table's name too
        }
        return at <= 0 ? "" : fileName.substring(0, at).replaceAll("[_\\-.]+$", "");
    }
}

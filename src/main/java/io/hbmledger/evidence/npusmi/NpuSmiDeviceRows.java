package io.hbmledger.evidence.npusmi;

import static io.hbmledger.evidence.npusmi.NpuSmiInfoParser.INT;
import static io.hbmledger.evidence.npusmi.NpuSmiInfoParser.PAIR_GAP;

import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiLines.Row;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The shape of an {@code npu-smi info} device row pair seen without the table's header, and the
 * header npu-smi prints above such rows, to stand in for it. Row 1 is
 * {@code | <npu id> <name> | <health> | <power> <temp> <hugepages a / b> |}, row 2
 * {@code | <chip id> [<phy id>] | <bus id> | <aicore> <memory a / b> [<hbm a / b>] |} (CANN
 * {@code npu_info_print.c}: {@code print_total_info_with_HBM} for 910 / 910B / Atlas A3, where
 * row 2 ends with Memory-Usage(MB) then HBM-Usage(MB); {@code print_total_info} for 310P, with
 * Memory-Usage(MB) only). The bus id is what tells a pair from a line that merely looks like a row.
 */
final class NpuSmiDeviceRows {

    private static final Pattern BUS_ID = Pattern.compile("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f]");
    private static final Row HBM_HEADER_1 = SmiLines.row("| NPU Name | Health | Power(W) Temp(C) Hugepages-Usage(page) |");
    private static final Row HBM_HEADER_2 = SmiLines.row("| Chip | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB) |");
    private static final Row HBM_HEADER_2_PHY = SmiLines.row("| Chip Phy-ID | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB) |");

    private NpuSmiDeviceRows() {
    }

    /** True for a device pair's first row: an NPU id and a chip name, a health cell, a hugepages pair. */
    static boolean isFirstRow(Row row) {
        if (row.cells().size() < 3) {
            return false;
        }
        List<String> id = SmiLines.tokens(row.cells().get(0));
        return id.size() >= 2 && INT.matcher(id.get(0)).matches() && !INT.matcher(id.get(1)).matches()
                && !row.cells().get(1).isEmpty() && pairs(row.cells().get(2)) >= 1;
    }

    /**
     * The "used / total" pairs in the last cell of a pair's second row (2 with HBM, 1 on 310P), or
     * -1 when the row is not one: one or two ids, then a bus id such as {@code 0000:C1:00.0}.
     */
    static int chipRowPairs(Row row) {
        if (row.cells().size() < 3) {
            return -1;
        }
        List<String> id = SmiLines.tokens(row.cells().get(0));
        boolean ids = !id.isEmpty() && id.size() <= 2 && id.stream().allMatch(t -> INT.matcher(t).matches());
        return ids && BUS_ID.matcher(row.cells().get(1)).matches() ? pairs(row.cells().get(2)) : -1;
    }

    /**
     * The two header rows npu-smi info prints above chips with HBM, for a second row with two
     * pairs: {@code Chip Phy-ID} (Atlas A3) when the row holds two ids, else {@code Chip}.
     */
    static List<Row> standInHeader(Row secondRow) {
        return List.of(HBM_HEADER_1, SmiLines.tokens(secondRow.cells().get(0)).size() == 2 ? HBM_HEADER_2_PHY : HBM_HEADER_2);
    }

    /**
     * True when cleaned lines hold a device row pair without a header (either pair count), blank
     * lines between its two rows allowed (a markdown paste).
     */
    static boolean hasPair(List<String> cleaned) {
        for (int i = 0; i + 1 < cleaned.size(); i++) {
            if (!SmiLines.isRow(cleaned.get(i)) || !isFirstRow(SmiLines.row(cleaned.get(i)))) {
                continue;
            }
            int j = i + 1;
            while (j < cleaned.size() && cleaned.get(j).isEmpty()) {
                j++;
            }
            if (j < cleaned.size() && SmiLines.isRow(cleaned.get(j)) && chipRowPairs(SmiLines.row(cleaned.get(j))) >= 1) {
                return true;
            }
        }
        return false;
    }

    /**
     * The process table header npu-smi info prints ({@code npu_info_print.c}; every version in the
     * corpus, 23.0 to 25.5, 910B to Atlas A3), to stand in for it above process rows pasted alone.
     */
    static final Row PROCESS_HEADER = SmiLines.row("| NPU Chip | Process id | Process name | Process memory(MB) |");

    /**
     * True for a row of npu-smi info's process table: {@code | <npu id> <chip id> | <pid> |
     * <process name> | <memory MB> |}. The shape leaves one reading: exactly four cells, two ids,
     * a pid, a name that is not a number and one whole number, so without its header it is read
     * in that layout ({@link #PROCESS_HEADER}), as inferred. A row with another cell count (a
     * driver that adds a column) is not guessed at.
     */
    static boolean isProcessRow(Row row) {
        if (row.cells().size() != 4 || !row.closed()) {
            return false;
        }
        List<String> id = SmiLines.tokens(row.cells().get(0));
        String name = row.cells().get(2).strip();
        return id.size() == 2 && id.stream().allMatch(t -> INT.matcher(t).matches())
                && INT.matcher(row.cells().get(1).strip()).matches() && !name.isEmpty() && !INT.matcher(name).matches()
                && INT.matcher(row.cells().get(3).strip()).matches();
    }

    /**
     * True when cleaned lines hold process rows without a header: at least two (frames between
     * them or not), or one alone printed at npu-smi's own column widths ({@link #isPrintedProcessRow}).
     */
    static boolean hasProcessRows(List<String> cleaned) {
        List<String> rows = cleaned.stream().filter(l -> SmiLines.isRow(l) && isProcessRow(SmiLines.row(l))).limit(2).toList();
        return rows.size() == 2 || rows.size() == 1 && isPrintedProcessRow(rows.get(0));
    }

    /**
     * Widths between the pipes of npu-smi info's process rows, {@code | 0       0                 |
     * 641248        | python3                  | 113                     |}: 27, 15, 26, 25 in every
     * 910B and Atlas A3 table of the corpus (23.0 to 25.5), 31, 17, 26, 27 under the 310P duo's
     * process header (corpus 6842). A lone row of the process shape is taken for npu-smi's only
     * when it keeps one of them: a markdown table row someone typed ({@code | 0 0 | 12 | a | 3 |})
     * has the shape but not the widths.
     */
    private static final int[][] PROCESS_WIDTHS = {{27, 15, 26, 25}, {31, 17, 26, 27}};

    /** True for a cleaned process row whose cells have the widths npu-smi prints them at. */
    static boolean isPrintedProcessRow(String cleaned) {
        for (int[] widths : PROCESS_WIDTHS) {
            if (hasWidths(cleaned, widths)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasWidths(String row, int[] widths) {
        int at = 0;
        for (int width : widths) {
            int next = at + width + 1;
            if (row.length() <= next || row.charAt(at) != '|' || row.charAt(next) != '|' || row.substring(at + 1, next).indexOf('|') >= 0) {
                return false;
            }
            at = next;
        }
        return row.length() == at + 1;
    }

    private static int pairs(String cell) {
        return (int) SmiLines.tokens(PAIR_GAP.matcher(cell).replaceAll("/")).stream().filter(t -> t.contains("/")).count();
    }
}

package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.EvidenceFormat;
import java.util.List;
import java.util.Set;

/**
 * What one pass over one msprof / torch_npu export file found.
 *
 * @param file the file as named to the reader
 * @param format {@code msprof-csv} or {@code msprof-db}
 * @param tables the memory tables the file holds (a CSV holds one)
 * @param absent memory tables a SQLite export lacks: absent, which is not zero
 * @param series summarised series in first-seen order
 * @param operators operator_memory totals per device
 * @param warnings problems naming the row ({@code row 7: ...}) or table
 * @param rows data rows read
 * @param emptyRows of those, rows that were blank or held NUL bytes: a CSV whose rows are all
 *     empty has a header and no data
 */
public record MsprofFileResult(String file, EvidenceFormat format, Set<MsprofTable> tables, Set<MsprofTable> absent,
                               List<MsprofSeries> series, List<MsprofOperatorTotals> operators,
                               List<String> warnings, long rows, long emptyRows) {

    public MsprofFileResult {
        tables = Set.copyOf(tables);
        absent = Set.copyOf(absent);
        series = List.copyOf(series);
        operators = List.copyOf(operators);
        warnings = List.copyOf(warnings);
    }
}

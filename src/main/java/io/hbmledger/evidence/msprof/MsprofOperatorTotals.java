package io.hbmledger.evidence.msprof;

/**
 * operator_memory (CSV) or OP_MEMORY (SQLite) summed per device.
 *
 * @param device {@code npu:<id>} or null (process-level)
 * @param deviceFromFolder device taken from a {@code device_N} folder name
 * @param bytesTotal sum of all operator allocation sizes, bytes
 * @param bytesUnreleased sum of the sizes without a release time (not freed in the window)
 * @param count operator allocations
 * @param file the (last) file read
 * @param lastRow the last row that contributed
 */
public record MsprofOperatorTotals(String device, boolean deviceFromFolder, long bytesTotal,
                                   long bytesUnreleased, long count, String file, long lastRow) {
}

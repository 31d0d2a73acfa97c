package io.hbmledger.evidence.msprof;

import java.nio.file.Path;

/**
 * One export file found by {@link MsprofExportWalker}.
 *
 * @param path the file
 * @param table the memory table of a CSV, or null for a SQLite export (which holds several)
 * @param sliceGroup files with the same group are slices of one table ({@code _slice_0},
 *     {@code _slice_1}, ...) and are joined in slice order
 * @param slice the slice index, 0 when the name has none
 * @param folderDevice device id from the nearest {@code device_N} folder, or null; used only
 *     for rows of a file without a device column, and then marked as taken from the folder
 */
public record MsprofInput(Path path, MsprofTable table, String sliceGroup, int slice, Integer folderDevice) {

    /** A single file given directly, with no folder knowledge. */
    public static MsprofInput of(Path path) {
        return new MsprofInput(path, null, path.toString(), 0, null);
    }
}

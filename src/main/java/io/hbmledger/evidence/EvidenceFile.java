package io.hbmledger.evidence;

import java.util.List;

/**
 * What one reader took from one file: its detected format, the observations in file order,
 * and warnings that name the line ({@code "line 7: ..."}) or row they concern.
 *
 * @param path the path as the user named it
 * @param format contract format name ({@code npu-smi-info}, {@code vllm-log}, ...) or
 *     {@code unknown}
 */
public record EvidenceFile(String path, String format, List<Observation> observations,
                           List<String> warnings) {

    public EvidenceFile {
        observations = List.copyOf(observations);
        warnings = List.copyOf(warnings);
    }

    public static final String UNKNOWN = "unknown";

    public boolean usable() {
        return !UNKNOWN.equals(format);
    }

    /**
     * True when the format's {@code line} counts data rows of a table (CSV, header excluded;
     * SQLite rowid), not lines of the file (evidence-v1): shown as {@code row N}.
     */
    public static boolean countsDataRows(String format) {
        return format.endsWith("-csv") || format.endsWith("-db");
    }
}

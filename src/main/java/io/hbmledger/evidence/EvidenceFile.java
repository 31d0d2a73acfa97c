package io.hbmledger.evidence;

import java.util.List;

/**
 * What one reader took from one file: its detected format, the observations in file order,
 * and warnings that name the line ({@code "line 7: ..."}) or row they concern.
 *
 * @param path the path as the user named it
 * @param format the detected format, {@link EvidenceFormat#UNKNOWN} when no reader knew the file
 */
public record EvidenceFile(String path, EvidenceFormat format, List<Observation> observations,
                           List<String> warnings) {

    public EvidenceFile {
        observations = List.copyOf(observations);
        warnings = List.copyOf(warnings);
    }

    public boolean usable() {
        return format != EvidenceFormat.UNKNOWN;
    }
}

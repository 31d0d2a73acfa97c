package io.hbmledger.evidence;

import java.util.List;

/**
 * What one reader took from one file: its detected format, the observations in file order,
 * and warnings that name the line ({@code "line 7: ..."}) or row they concern.
 *
 * @param path the path as the user named it
 * @param format the detected format, {@link EvidenceFormat#UNKNOWN} when no reader knew the file
 * @param parts for a pasted file ({@code pasted-text}), its line ranges and what each was read
 *     as, in file order; the observations and warnings above are theirs, joined. Empty for
 *     every other format
 */
public record EvidenceFile(String path, EvidenceFormat format, List<Observation> observations,
                           List<String> warnings, List<EvidencePart> parts) {

    public EvidenceFile {
        observations = List.copyOf(observations);
        warnings = List.copyOf(warnings);
        parts = List.copyOf(parts);
    }

    /** A file read whole by one reader (every format but a paste). */
    public EvidenceFile(String path, EvidenceFormat format, List<Observation> observations, List<String> warnings) {
        this(path, format, observations, warnings, List.of());
    }

    public boolean usable() {
        return format != EvidenceFormat.UNKNOWN;
    }
}

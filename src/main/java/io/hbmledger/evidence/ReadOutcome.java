package io.hbmledger.evidence;

/**
 * What reading one evidence file gave: the file, or why it could not be read. A listing of many
 * files keeps one per file, so that one bad file is named without stopping the others.
 *
 * @param file the file's evidence; null when it failed
 * @param failure why it failed: an {@link java.io.IOException} or {@link EvidenceException}, as
 *     the readers throw them; null when read
 */
public record ReadOutcome(EvidenceFile file, Exception failure) {
}

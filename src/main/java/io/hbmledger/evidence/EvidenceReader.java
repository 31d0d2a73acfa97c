package io.hbmledger.evidence;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads one kind of evidence. Implementations keep the parsing itself pure (text or bytes in,
 * observations out) and do only the file access here, so that tests can feed text directly.
 */
public interface EvidenceReader {

    /**
     * Recognises this reader's format from the file's first bytes.
     *
     * @return the format, or empty when the content is not this reader's
     */
    Optional<EvidenceFormat> detect(FileHead head);

    /**
     * Reads the whole file. Unreadable parts become warnings naming line or row; a file that
     * cannot be used at all throws.
     *
     * @param displayPath the path to print in the result and in messages
     * @throws EvidenceException when the file is malformed beyond use
     */
    EvidenceFile read(Path file, String displayPath, FileHead head)
            throws IOException, EvidenceException;

    /**
     * Reads text already in memory, as {@link #read} reads a file holding that text: a block of
     * a pasted file. Line numbers are those of the text. Readers of binary formats read files
     * only and return empty.
     *
     * @param format what {@link #detect} said of the text
     * @throws EvidenceException when the text is malformed beyond use
     */
    default Optional<EvidenceFile> readText(String text, String displayPath, EvidenceFormat format) throws EvidenceException {
        return Optional.empty();
    }
}

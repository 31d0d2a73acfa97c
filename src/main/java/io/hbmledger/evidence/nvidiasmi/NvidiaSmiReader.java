package io.hbmledger.evidence.nvidiasmi;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/** Reader for nvidia-smi tables and --query-gpu CSV. Not written yet: recognises nothing. */
public final class NvidiaSmiReader implements EvidenceReader {

    @Override
    public Optional<String> detect(FileHead head) {
        return Optional.empty();
    }

    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head)
            throws IOException, EvidenceException {
        throw new EvidenceException(displayPath, 0, "reader not written yet");
    }
}

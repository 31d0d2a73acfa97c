package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.msprof.MsprofDirectory;
import io.hbmledger.run.FileProblem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * What each evidence file says on its own, before attribution ({@code hbm-ledger evidence}): a
 * file that cannot be read or recognised is listed too, as {@link EvidenceFile#UNKNOWN} with why.
 *
 * @param files one result per file, in the order given
 * @param problems one line per unusable file or file warning of an unusable file, naming the file
 */
public record EvidenceListing(List<EvidenceFile> files, List<String> problems) {

    public EvidenceListing {
        files = List.copyOf(files);
        problems = List.copyOf(problems);
    }

    /** True when every file was read and recognised. */
    public boolean allUsable() {
        return files.stream().allMatch(EvidenceFile::usable);
    }

    /** Reads each file as given (its name as given is how it is shown). */
    public static EvidenceListing read(List<Path> paths) {
        EvidenceReaders readers = EvidenceReaders.all();
        List<EvidenceFile> results = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Path file : paths) {
            String shown = file.toString();
            try {
                for (EvidenceFile f : readNamed(readers, file)) {
                    results.add(f);
                    if (!f.usable()) {
                        f.warnings().forEach(w -> problems.add(f.path() + ": " + w));
                    }
                }
            } catch (EvidenceException e) {
                problems.add(e.getMessage());
                results.add(new EvidenceFile(shown, EvidenceFormat.UNKNOWN, List.of(), List.of(e.getMessage())));
            } catch (IOException e) {
                problems.add(shown + ": " + FileProblem.cannotRead(e));
                results.add(new EvidenceFile(shown, EvidenceFormat.UNKNOWN, List.of(), List.of(FileProblem.cannotRead(e))));
            }
        }
        return new EvidenceListing(results, problems);
    }

    /**
     * One named input: {@code -} is standard input ({@code cat npu-smi.txt | hbm-ledger evidence -}),
     * kept byte for byte in a private temporary file so that every reader, binary ones included,
     * reads it as a file, and shown as {@code -}; an msprof {@code PROF_*} / torch_npu
     * {@code *_ascend_pt} directory (or one holding some) stands for the files exported under it.
     */
    private static List<EvidenceFile> readNamed(EvidenceReaders readers, Path file) throws IOException, EvidenceException {
        if (file.toString().equals("-")) {
            Path tmp = Files.createTempFile("hbm-ledger-stdin-", ".txt");
            try {
                try (InputStream in = System.in) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                return List.of(readers.read(tmp, "-"));
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        if (Files.isDirectory(file)) {
            List<EvidenceFile> out = new ArrayList<>();
            for (Path p : MsprofDirectory.exportedFiles(file, file.toString())) {
                out.add(readers.read(p, p.toString()));
            }
            return out;
        }
        return List.of(readers.read(file, file.toString()));
    }
}

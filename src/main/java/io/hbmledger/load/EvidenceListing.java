package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.ReadOutcome;
import io.hbmledger.evidence.msprof.MsprofDirectory;
import io.hbmledger.evidence.msprof.MsprofFiles;
import io.hbmledger.evidence.msprof.MsprofReader;
import io.hbmledger.run.FileProblem;
import io.hbmledger.run.RunDirectory;
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
 * @param problems one line per unusable file or file warning of an unusable file, naming the file,
 *     then one per named folder with files beside its msprof exports that were not read
 * @param noEvidence one line per file read without fault that holds no evidence ({@link NoEvidence}):
 *     said, not an error
 * @param refused true when some file could not be read, was of no known format or malformed
 */
public record EvidenceListing(List<EvidenceFile> files, List<String> problems, List<String> noEvidence, boolean refused) {

    public EvidenceListing {
        files = List.copyOf(files);
        problems = List.copyOf(problems);
        noEvidence = List.copyOf(noEvidence);
    }

    /** True when every file was read and recognised, or was empty. */
    public boolean allUsable() {
        return !refused;
    }

    /**
     * Reads each file as given (its name as given is how it is shown). The msprof CSV exports
     * among them are read together ({@link MsprofReader#readTogether}), the others one by one.
     */
    public static EvidenceListing read(List<Path> paths) {
        EvidenceReaders readers = EvidenceReaders.all();
        List<Slot> slots = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        boolean stdinRead = false;
        for (Path file : paths) {
            if (file.toString().equals("-") && stdinRead) {
                // the first "-" read standard input to its end (and closed it)
                slots.add(Slot.failed("-", new EvidenceException("-", 0, "standard input is named a second time;"
                        + " it can be read only once: name - once, or save each input to a file and name the files")));
                continue;
            }
            stdinRead |= file.toString().equals("-");
            try {
                slots.addAll(named(readers, file, notes));
            } catch (EvidenceException e) {
                slots.add(Slot.failed(file.toString(), e));
            } catch (IOException e) {
                slots.add(Slot.failed(file.toString(), e));
            }
        }
        // each named file's head is read once: to pick out the msprof CSVs, then by its reader
        slots.stream().filter(st -> st.outcome == null).forEach(st -> st.head = headOf(st.file));
        List<Slot> msprof = slots.stream().filter(st -> st.outcome == null && isMsprofCsv(st.head)).toList();
        if (!msprof.isEmpty()) {
            try {
                List<ReadOutcome> outcomes = MsprofReader.readTogether(
                        msprof.stream().map(st -> st.file).toList(), msprof.stream().map(st -> st.shown).toList());
                for (int i = 0; i < msprof.size(); i++) {
                    msprof.get(i).outcome = outcomes.get(i);
                }
            } catch (IOException e) {
                msprof.forEach(st -> st.outcome = new ReadOutcome(null, e));
            }
        }
        List<EvidenceFile> results = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> noEvidence = new ArrayList<>();
        boolean refused = false;
        for (Slot st : slots) {
            if (st.outcome == null) {
                st.empty = st.head != null && st.head.blank(); // no head: the reader says what went wrong
                try {
                    st.outcome = new ReadOutcome(readers.read(st.file, st.shown, st.head), null);
                } catch (EvidenceException | IOException e) {
                    st.outcome = new ReadOutcome(null, e);
                }
            }
            // a file of no byte (or blank lines) is no evidence, not bad input: nothing was written
            // to it (a capture that failed), which is said below; a SQLite -wal, empty by nature,
            // is read as usable
            boolean blank = st.outcome.failure() == null && st.empty && !st.outcome.file().usable();
            refused |= st.outcome.failure() != null || !blank && !st.outcome.file().usable();
            if (st.outcome.failure() instanceof EvidenceException e) {
                problems.add(e.getMessage());
                results.add(new EvidenceFile(st.shown, EvidenceFormat.UNKNOWN, List.of(), List.of(e.getMessage())));
            } else if (st.outcome.failure() instanceof IOException e) {
                problems.add(st.shown + ": " + FileProblem.cannotRead(e));
                results.add(new EvidenceFile(st.shown, EvidenceFormat.UNKNOWN, List.of(), List.of(FileProblem.cannotRead(e))));
            } else {
                // no byte and blank lines alike: one wording, whatever the reader said of them
                EvidenceFile f = blank ? new EvidenceFile(st.outcome.file().path(), EvidenceFormat.UNKNOWN, List.of(),
                        List.of("line 1: the file is empty (no byte, or blank lines only): no evidence")) : st.outcome.file();
                results.add(f);
                if (!f.usable() && !blank) {
                    f.warnings().forEach(w -> problems.add(f.path() + ": " + w));
                }
                NoEvidence.of(f, blank).ifPresent(noEvidence::add);
            }
        }
        problems.addAll(notes);
        return new EvidenceListing(results, problems, noEvidence, refused);
    }

    /** One file to list, and what reading it gave (null: still to read). */
    private static final class Slot {
        final String shown;
        final Path file;
        ReadOutcome outcome;
        /** The file has no byte, or blank lines only ({@link FileHead#blank}). */
        boolean empty;
        /** The file's first bytes, read once; null when it is not a regular file or cannot be read. */
        FileHead head;

        private Slot(String shown, Path file, ReadOutcome outcome) {
            this.shown = shown;
            this.file = file;
            this.outcome = outcome;
        }

        static Slot toRead(Path file, String shown) {
            return new Slot(shown, file, null);
        }

        static Slot read(EvidenceFile f) {
            return new Slot(f.path(), null, new ReadOutcome(f, null));
        }

        static Slot failed(String shown, Exception e) {
            return new Slot(shown, null, new ReadOutcome(null, e));
        }
    }

    /** The regular files directly in {@code dir} that are not among {@code exported}, by name. */
    private static List<String> otherFiles(Path dir, List<Path> exported) throws IOException {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> !exported.contains(p))
                    .map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
        }
    }

    /** A file whose head starts with an msprof memory table's CSV header. */
    private static boolean isMsprofCsv(FileHead head) {
        return head != null && MsprofFiles.detect(head.head()).orElse(null) == MsprofFiles.FORMAT_CSV;
    }

    /** A regular file's head, or null: such a file is read alone, where the reader says what went wrong. */
    private static FileHead headOf(Path file) {
        try {
            return Files.isRegularFile(file) ? FileHead.of(file) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * One named input: {@code -} is standard input ({@code cat npu-smi.txt | hbm-ledger evidence -}),
     * kept byte for byte in a private temporary file so that every reader, binary ones included,
     * reads it as a file, and shown as {@code -}; an msprof {@code PROF_*} / torch_npu
     * {@code *_ascend_pt} directory (or one holding some) stands for the files exported under it.
     */
    private static List<Slot> named(EvidenceReaders readers, Path file, List<String> notes)
            throws IOException, EvidenceException {
        if (file.toString().equals("-")) {
            // read at once: its temporary file goes with it
            Path tmp = Files.createTempFile("hbm-ledger-stdin-", ".txt");
            try {
                try (InputStream in = System.in) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                FileHead head = FileHead.of(tmp);
                Slot read = Slot.read(readers.read(tmp, "-", head));
                read.empty = head.blank();
                return List.of(read);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        if (!Files.isDirectory(file)) {
            return List.of(Slot.toRead(file, file.toString()));
        }
        // a directory is listed as analyze lists it (RunInputs): a run's evidence entries, an
        // export whole, or a folder's exports and other files; then each export stands for its files
        List<Slot> out = new ArrayList<>();
        try {
            if (RunInputs.isRunDirectory(List.of(file))) {
                for (RunInput in : RunInputs.of(RunDirectory.open(file))) {
                    out.addAll(entry(in.path(), in.shown(), notes));
                }
            } else if (MsprofFormats.standsForExport(file)) {
                out.addAll(export(file, notes));
            } else {
                List<String> skipped = new ArrayList<>();
                for (Path p : RunInputs.folder(file, skipped)) {
                    out.addAll(entry(p, p.toString(), notes));
                }
                skipped.forEach(w -> notes.add("skipped " + w));
            }
        } catch (BadInputException e) {
            // its message names the directory: as an evidence problem, without naming it twice
            throw new EvidenceException(file.toString(), 0, e.getMessage().replaceFirst("^" + java.util.regex.Pattern.quote(file
                    + ": "), ""));
        }
        return out;
    }

    /** One path of a listed directory: an export stands for its exported files, a file for itself. */
    private static List<Slot> entry(Path p, String shown, List<String> notes) throws IOException, EvidenceException {
        return Files.isDirectory(p) ? export(p, notes) : List.of(Slot.toRead(p, shown));
    }

    /** The exported memory files of an msprof / torch_npu export, other files directly in it named in a note. */
    private static List<Slot> export(Path dir, List<String> notes) throws IOException, EvidenceException {
        List<Slot> out = new ArrayList<>();
        List<Path> exported = MsprofDirectory.exportedFiles(dir, dir.toString());
        for (Path p : exported) {
            out.add(Slot.toRead(p, p.toString()));
        }
        List<String> others = otherFiles(dir, exported);
        if (!others.isEmpty()) {
            // said, not dropped without a word: an export stands for its msprof files only
            notes.add(dir + ": " + others.size() + (others.size() == 1 ? " file" : " files") + " beside the msprof"
                    + " export" + (exported.size() == 1 ? "" : "s") + " not read (" + String.join(", ", others)
                    + "): name " + (others.size() == 1 ? "it" : "them") + " to read " + (others.size() == 1 ? "it" : "them"));
        }
        return out;
    }
}

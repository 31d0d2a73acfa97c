package io.hbmledger.evidence;

import io.hbmledger.evidence.modelconfig.ModelConfigReader;
import io.hbmledger.evidence.msprof.MsprofReader;
import io.hbmledger.evidence.msprof.SqliteSidecar;
import io.hbmledger.evidence.npusmi.NpuSmiReader;
import io.hbmledger.evidence.nvidiasmi.NvidiaSmiReader;
import io.hbmledger.evidence.paste.PasteReader;
import io.hbmledger.evidence.safetensors.SafetensorsReader;
import io.hbmledger.evidence.vllmlog.VllmLogReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Recognises each file's format by content and hands it to its reader. Binary formats come
 * first: their magic bytes are unambiguous, while text formats are recognised by phrases. A
 * pasted text ({@link PasteReader}) is taken before the one-format text readers when it has
 * fenced blocks, and after them otherwise.
 */
public final class EvidenceReaders {

    private final List<EvidenceReader> readers;

    public EvidenceReaders(List<EvidenceReader> readers) {
        this.readers = List.copyOf(readers);
    }

    /** Every reader the project has, in detection order. */
    public static EvidenceReaders all() {
        List<EvidenceReader> text = List.of(new ModelConfigReader(), new NpuSmiReader(), new NvidiaSmiReader(),
                new VllmLogReader());
        List<EvidenceReader> all = new ArrayList<>(List.of(new MsprofReader(), new SafetensorsReader()));
        // a paste with fenced blocks may quote several tools: before the one-format text readers
        all.add(new PasteReader(text, true));
        all.addAll(text);
        // text that none of them claims but that holds output lines or speaks of the subject
        all.add(new PasteReader(text, false));
        return new EvidenceReaders(all);
    }

    /**
     * Reads one file. An unrecognised or empty file gives an {@code unknown} result with a
     * warning, not an exception, so that the other files of a run are still read.
     *
     * @throws EvidenceException when the format was recognised but the file is unusable
     * @throws IOException when the file cannot be read at all
     */
    public EvidenceFile read(Path file, String displayPath) throws IOException, EvidenceException {
        return read(file, displayPath, null);
    }

    /**
     * Reads one file whose head the caller has already read ({@link FileHead#of}), so that it is
     * not read twice; null reads it here. Otherwise as {@link #read(Path, String)}.
     *
     * @throws EvidenceException when the format was recognised but the file is unusable
     * @throws IOException when the file cannot be read at all
     */
    public EvidenceFile read(Path file, String displayPath, FileHead known) throws IOException, EvidenceException {
        if (!Files.isRegularFile(file)) {
            // a pipe is what a shell's process substitution names: hbm-ledger evidence <(ssh host npu-smi info)
            throw new EvidenceException(displayPath, 0, "expected a regular file, found "
                    + (Files.isDirectory(file) ? "a directory; check the path"
                            : Files.exists(file) ? "a special file (a pipe such as <(...), a device or a socket), which is"
                                    + " not read: pipe it into - (standard input) or save it to a file first"
                            : "nothing; check the path"));
        }
        FileHead head = known != null ? known : FileHead.of(file);
        // before the empty-file check: a checkpointed write-ahead log is empty
        Optional<EvidenceFile> sidecar = SqliteSidecar.read(head, displayPath);
        if (sidecar.isPresent()) {
            return sidecar.get();
        }
        if (head.size() == 0) {
            return unknown(displayPath, "line 1: the file is empty; expected npu-smi, nvidia-smi, vLLM log, msprof, safetensors or config.json content");
        }
        for (EvidenceReader reader : readers) {
            Optional<EvidenceFormat> format = reader.detect(head);
            if (format.isPresent()) {
                return reader.read(file, displayPath, head);
            }
        }
        if (head.blank()) {
            // a byte order mark or blank lines alone said "format not recognised" (fresh-user finding)
            byte[] b = head.head();
            boolean bom = b.length >= 2 && (b[0] == (byte) 0xEF || b[0] == (byte) 0xFE || b[0] == (byte) 0xFF);
            return unknown(displayPath, "line 1: the file holds only blank lines" + (bom ? " after a byte order mark" : "") + "; expected npu-smi, nvidia-smi, vLLM log, msprof, safetensors"
                    + " or config.json content");
        }
        FileHead.Damage damage = head.damage();
        String found = damage.binary()
                ? "line " + damage.first() + ": format not recognised: binary content (NUL or control bytes on "
                        + (damage.lines() == 1 ? "its only line" : damage.damaged() + " of the " + damage.lines()
                                + " lines in the first " + FileHead.HEAD_BYTES / 1024 + " KiB, the first on line " + damage.first())
                        + ")"
                : "line 1: format not recognised";
        return unknown(displayPath, found
                + "; expected npu-smi or nvidia-smi output, a vLLM/vllm-ascend log, an msprof or torch_npu export (CSV or .db), a safetensors file or index, a Git LFS pointer, or a config.json");
    }

    private static EvidenceFile unknown(String path, String warning) {
        return new EvidenceFile(path, EvidenceFormat.UNKNOWN, List.of(), List.of(warning));
    }

    public List<EvidenceReader> readers() {
        return new ArrayList<>(readers);
    }
}

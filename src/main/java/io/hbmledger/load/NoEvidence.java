package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidencePart;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The line {@code hbm-ledger evidence} prints on stderr for a file it read without fault but
 * that holds no evidence: an empty file, an npu-smi table cut off before its first device row,
 * a paste of prose only. Such a file is listed (0 observations) and is not an error: what it
 * holds is the answer to "what does this file give?"; but it is said, so that a failed capture
 * is not taken for a quiet device. Pure: a reading in, a sentence out.
 */
final class NoEvidence {

    /** What any evidence file may hold. */
    private static final String ANY = "npu-smi or nvidia-smi output, vLLM / vllm-ascend log lines, an msprof export,"
            + " a safetensors header or a config.json";

    private NoEvidence() {
    }

    /**
     * @param empty true when the file has no byte, or only blank lines
     * @return {@code no evidence found in FILE: expected ...; found ...}, or empty when the file
     *     holds an observation, or is a companion file that holds none by nature (a SQLite -wal)
     */
    static Optional<String> of(EvidenceFile f, boolean empty) {
        if (empty) {
            return Optional.of(line(f.path(), ANY, "an empty file (no byte, or blank lines only): a capture that wrote nothing?"));
        }
        if (!f.usable() || !f.observations().isEmpty() || f.format() == EvidenceFormat.SQLITE_SIDECAR) {
            return Optional.empty();
        }
        if (f.format() == EvidenceFormat.PASTED_TEXT) {
            List<String> found = new ArrayList<>();
            for (EvidencePart p : f.parts()) {
                found.add((p.read() ? p.shownFormat() + " output without a value" : p.prose() ? "prose"
                        : p.label() + " that no reader knows") + " (" + p.lines() + ")");
            }
            return Optional.of(line(f.path(), ANY, found.isEmpty() ? "no line of text" : String.join(", ", found)));
        }
        String found = f.format().contractName() + " output in which no line holds a value"
                + (f.warnings().isEmpty() ? " (cut off before its rows?)" : " (" + f.warnings().get(0) + ")");
        return Optional.of(line(f.path(), expected(f.format()), found));
    }

    private static String line(String path, String expected, String found) {
        return "no evidence found in " + path + ": expected " + expected + "; found " + found;
    }

    /** What a file of this format holds when it holds evidence. */
    private static String expected(EvidenceFormat format) {
        return switch (format.family()) {
            case NPU_SMI -> "npu-smi device rows with their memory (HBM-Usage(MB) or Memory-Usage(MB) columns, or"
                    + " the usage lines of npu-smi info -t usages)";
            case NVIDIA_SMI -> "nvidia-smi GPU rows with their memory (MiB)";
            case VLLM_LOG -> "vLLM memory lines (model weights, KV cache, memory profiling, out-of-memory errors) or its"
                    + " start command";
            case MSPROF -> "rows of the msprof memory tables (npu_mem, npu_module_mem, memory_record, operator_memory)";
            case CHECKPOINT -> "tensor headers, an index or the model's sizes";
            case NONE -> ANY;
        };
    }
}

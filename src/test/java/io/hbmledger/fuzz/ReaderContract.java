package io.hbmledger.fuzz;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The contract every reader keeps on any input, checked by the fuzz tests: it either refuses
 * the file with an {@link EvidenceException} whose message is one line naming the file (and
 * the line when there is one), or returns observations whose numbers are finite, non-negative
 * unless the quantity is a signed figure, and below physical bounds. Any other exception
 * escapes and is the fuzzer's finding.
 */
public final class ReaderContract {

    /** No accelerator holds more; a larger memory amount is a misread, not a reading. */
    public static final long TIB = 1L << 40;

    /**
     * Figures that may be negative as written: vLLM's KV budget and the memory figures it derives
     * by subtraction (a refused start prints a negative KV cache), and msprof's operator
     * release rows.
     */
    static final Set<Quantity> SIGNED = EnumSet.of(Quantity.KV_CACHE_AVAILABLE, Quantity.AVAILABLE_MEMORY,
            Quantity.KV_CACHE_SUGGESTED, Quantity.NON_TORCH, Quantity.ACTIVATION_PEAK, Quantity.GRAPH_MEMORY,
            Quantity.NON_KV_CACHE_MEMORY, Quantity.OPERATOR_BYTES_UNRELEASED);

    /** Sizes of checkpoints, not of a device: a whole model's files may exceed one device. */
    static final Set<Quantity> CHECKPOINT = EnumSet.of(Quantity.TOTAL_SIZE, Quantity.LFS_OBJECT_SIZE,
            Quantity.TENSOR_BYTES_TOTAL, Quantity.WEIGHTS, Quantity.HEADER_BYTES);

    private ReaderContract() {
    }

    /**
     * Writes {@code data} to {@code dir/name} and reads it with {@code reader} when the reader
     * recognises it.
     *
     * @param maxCheckpointBytes bound for {@link #CHECKPOINT} amounts: the file's size for a
     *     safetensors file (no tensor over the file), else {@code Long.MAX_VALUE}
     * @return the result, empty when the reader refused the file or did not recognise it
     */
    public static Optional<EvidenceFile> read(EvidenceReader reader, Path dir, String name, byte[] data) {
        Path file = dir.resolve(name);
        try {
            Files.write(file, data);
            FileHead head = FileHead.of(file);
            if (reader.detect(head).isEmpty()) {
                return Optional.empty();
            }
            EvidenceFile result = reader.read(file, name, head);
            check(result, name.endsWith(".safetensors") ? data.length : Long.MAX_VALUE);
            return Optional.of(result);
        } catch (EvidenceException e) {
            checkRefusal(e, name);
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("the reader failed with an I/O error on a plain temp file", e);
        }
    }

    /** A refusal is one line naming the file. */
    public static void checkRefusal(EvidenceException e, String name) {
        String m = e.getMessage();
        if (m == null || m.indexOf('\n') >= 0 || m.indexOf('\r') >= 0 || !m.startsWith(name)) {
            throw new AssertionError("a refusal must be one line naming " + name + ", got: " + m, e);
        }
    }

    /** Checks every observation's number. */
    public static void check(EvidenceFile result, long maxCheckpointBytes) {
        for (Observation o : result.observations()) {
            if (o.isBytes()) {
                long b = o.bytes();
                if (b < 0 && !SIGNED.contains(o.quantity())) {
                    throw new AssertionError("negative memory amount " + o);
                }
                long bound = CHECKPOINT.contains(o.quantity()) ? maxCheckpointBytes : TIB;
                if (Math.abs(b) > bound) {
                    throw new AssertionError("memory amount beyond the physical bound " + bound + " B: " + o);
                }
            } else {
                double v = o.value();
                if (!Double.isFinite(v)) {
                    throw new AssertionError("non-finite value " + o);
                }
                if (v < 0 && !SIGNED.contains(o.quantity())) {
                    throw new AssertionError("negative value " + o);
                }
            }
        }
    }
}

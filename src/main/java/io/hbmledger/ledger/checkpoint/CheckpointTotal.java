package io.hbmledger.ledger.checkpoint;

import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.weights.Checkpoint;

/**
 * How many bytes the whole checkpoint holds and how sure that is: exact when every weights
 * file's safetensors header was read (the tensors' bytes summed) or when the index states
 * {@code metadata.total_size}; estimated when the sizes come from config.json shapes alone.
 *
 * @param bytes the checkpoint's tensor bytes, all ranks together
 * @param confidence {@link Confidence#EXACT} or {@link Confidence#ESTIMATED}
 * @param how where the figure comes from, in a sentence
 */
public record CheckpointTotal(long bytes, Confidence confidence, String how) {

    static CheckpointTotal of(CheckpointEvidence c) {
        Checkpoint ck = c.checkpoint();
        long sum = ck.totalBytes();
        if (ck.source() == Checkpoint.Source.HEADERS && c.lfsFiles() == 0) {
            return new CheckpointTotal(sum, Confidence.EXACT,
                    "tensor bytes summed from the safetensors headers (" + ck.tensors().size() + " tensors)");
        }
        if (c.indexTotalSize() != null) {
            long ts = c.indexTotalSize();
            String agree = sum == ts ? "; the " + ck.source().what() + " reproduce it to the byte"
                    : "; the " + ck.source().what() + " give " + sum + " B (" + signed(sum - ts) + " B)";
            return new CheckpointTotal(ts, Confidence.EXACT, "the safetensors index's metadata.total_size" + agree);
        }
        String lfs = c.lfsFiles() == 0 ? ""
                : "; the " + c.lfsFiles() + " Git LFS pointers name " + c.lfsObjectBytes()
                        + " B of files (headers included), not downloaded";
        return new CheckpointTotal(sum, ck.source() == Checkpoint.Source.HEADERS ? Confidence.EXACT : Confidence.ESTIMATED,
                (ck.source() == Checkpoint.Source.HEADERS ? "tensor bytes of the downloaded files' headers only"
                        : "config.json shapes (no safetensors headers)") + lfs);
    }

    static String signed(long v) {
        return (v > 0 ? "+" : "") + v;
    }
}

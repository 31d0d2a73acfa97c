package io.hbmledger.ledger.checkpoint;

import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.ProcessLevelEntry;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;




/**
 * The whole checkpoint's bytes, kept at process level: it belongs to every rank together, not
 * to one device. Exact from safetensors headers or the index's total_size, estimated from
 * config.json shapes ({@link CheckpointTotal}).
 */
public final class CheckpointTotalRule implements RunRule {

    public static final String COMPONENT = "weights_checkpoint_total";

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        CheckpointEvidence c = ev.checkpoint();
        if (c == null) {
            return;
        }
        CheckpointTotal t = CheckpointTotal.of(c);
        run.processLevel(new ProcessLevelEntry(COMPONENT, t.bytes(), t.confidence(),
                "the whole checkpoint " + c.shown() + ", every rank's share together (" + c.layout() + ")",
                c.sources(), t.how()));
    }
}

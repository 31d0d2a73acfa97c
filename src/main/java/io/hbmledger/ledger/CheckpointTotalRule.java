package io.hbmledger.ledger;

/**
 * The whole checkpoint's bytes, kept at process level: it belongs to every rank together, not
 * to one device. Exact from safetensors headers or the index's total_size, estimated from
 * config.json shapes ({@link CheckpointTotal}).
 */
final class CheckpointTotalRule implements RunRule {

    static final String COMPONENT = "weights_checkpoint_total";

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

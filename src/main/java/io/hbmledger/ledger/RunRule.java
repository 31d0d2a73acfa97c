package io.hbmledger.ledger;

/**
 * A rule over the whole run after every device's ledger is built: status, reasons and
 * process-level entries.
 */
public interface RunRule {

    void apply(EvidenceSet evidence, RunDraft run);
}

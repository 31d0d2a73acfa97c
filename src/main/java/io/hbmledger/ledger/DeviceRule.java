package io.hbmledger.ledger;

/**
 * One attribution rule over one device's ledger. Rules run in {@link Attribution}'s order; each
 * reads the evidence set and what earlier rules put in the draft, and adds or qualifies entries.
 * New evidence (msprof modules, checkpoint headers) comes in as new rules.
 */
public interface DeviceRule {

    void apply(EvidenceSet evidence, DeviceDraft device);
}

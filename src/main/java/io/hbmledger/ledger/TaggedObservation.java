package io.hbmledger.ledger;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.run.Moment;

/**
 * An observation with what the run knows about it: its file, the file's format, the moment the
 * file was taken, and the worker rank and logical device it concerns when known.
 *
 * @param file the file as shown to the user
 * @param format the evidence format
 * @param moment when the file was taken; null when the run does not say
 * @param rank worker rank, from run.json ({@code evidence[].rank}) or the log line's worker
 *     label; null when the line serves all ranks or its rank cannot be told
 * @param device logical device id the file's figures concern ({@code evidence[].device}), or null
 */
public record TaggedObservation(Observation o, String file, EvidenceFormat format, Moment moment,
                                Integer rank, Integer device) {

    public Source source() {
        // CSV and SQLite observations count data rows (evidence-v1), not file lines
        return new Source(file, o.line(), o.text(), format.countsDataRows());
    }

    public Quantity quantity() {
        return o.quantity();
    }

    public boolean isSmi() {
        return format.isDeviceSample();
    }

    public boolean isVllm() {
        return format == EvidenceFormat.VLLM_LOG;
    }

    public String momentName() {
        return moment == null ? null : moment.jsonName();
    }
}

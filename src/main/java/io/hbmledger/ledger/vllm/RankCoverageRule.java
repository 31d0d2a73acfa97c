package io.hbmledger.ledger.vllm;

import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;
import io.hbmledger.ledger.TaggedObservation;
import java.util.TreeSet;

/**
 * Says when the log names worker ranks the deployment does not have (a wrong --tp or devices
 * list): those lines would otherwise be silently left out of every device's ledger.
 */
public final class RankCoverageRule implements RunRule {

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        Layout l = ev.layout();
        // more devices than ranks is refused before attribution (analyze): a device list shorter
        // than the ranks is a node of a multi-node deployment
        if (l.devicesGiven() && l.devices().size() < l.deploymentRanks()) {
            run.note("the deployment lists " + l.devices().size() + " device(s) but " + l.sizes()
                    + " = " + l.deploymentRanks() + " ranks: rank i is mapped to the i-th listed device;"
                    + " ranks beyond the list (other nodes?) have no ledger here");
        }
        TreeSet<Integer> outside = new TreeSet<>();
        for (TaggedObservation t : ev.where(TaggedObservation::isVllm)) {
            if (t.rank() != null && t.rank() >= ev.layout().ranks()) {
                outside.add(t.rank());
            }
        }
        if (!outside.isEmpty()) {
            run.incomplete("the vLLM log has lines of rank(s) " + outside + " but the deployment has "
                    + ev.layout().ranks() + " rank(s) here (" + ev.layout().sizes()
                    + ", devices " + ev.layout().devices() + "); their figures are not in any ledger: check tp, dp, pp and devices");
        }
    }
}

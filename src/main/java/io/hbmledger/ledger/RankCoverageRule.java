package io.hbmledger.ledger;

import java.util.TreeSet;

/**
 * Says when the log names worker ranks the deployment does not have (a wrong --tp or devices
 * list): those lines would otherwise be silently left out of every device's ledger.
 */
final class RankCoverageRule implements RunRule {

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        Layout l = ev.layout();
        if (l.devicesGiven() && l.devices().size() != l.tp() * l.dp()) {
            run.note("the deployment lists " + l.devices().size() + " device(s) but TP " + l.tp() + " x DP " + l.dp()
                    + " = " + l.tp() * l.dp() + " ranks: rank i is mapped to the i-th listed device"
                    + (l.devices().size() < l.tp() * l.dp() ? "; ranks beyond the list (other nodes?) have no ledger here" : ""));
        }
        TreeSet<Integer> outside = new TreeSet<>();
        for (TaggedObservation t : ev.where(TaggedObservation::isVllm)) {
            if (t.rank() != null && t.rank() >= ev.layout().ranks()) {
                outside.add(t.rank());
            }
        }
        if (!outside.isEmpty()) {
            run.incomplete("the vLLM log has lines of rank(s) " + outside + " but the deployment has "
                    + ev.layout().ranks() + " rank(s) (TP " + ev.layout().tp() + " x DP " + ev.layout().dp()
                    + "); their figures are not in any ledger: check tp, dp and devices");
        }
    }
}

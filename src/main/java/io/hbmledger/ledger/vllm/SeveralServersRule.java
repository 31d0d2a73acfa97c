package io.hbmledger.ledger.vllm;

import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.evidence.Quantity;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Several vLLM logs that each describe a whole server (their own budget, KV cache or refused
 * start), with no rank stated for them by the run: separate instances sharing the devices, or
 * ranks of one server whose logs were not tagged. The ledger lines take each rank's last figure
 * across the logs; the findings keep every log as its own instance. Said once, so that a figure
 * of one instance is never read silently as another's.
 */
public final class SeveralServersRule implements RunRule {

    private static final Set<Quantity> WHOLE_SERVER = Set.of(Quantity.KV_CACHE_AVAILABLE, Quantity.INSTANCE_BUDGET,
            Quantity.FREE_MEMORY_AT_START, Quantity.MEMORY_UTILIZATION, Quantity.KV_CACHE_TOKENS);

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        Set<String> logs = new LinkedHashSet<>();
        for (TaggedObservation t : ev.observations()) {
            if (t.isVllm() && WHOLE_SERVER.contains(t.quantity())) {
                logs.add(t.file());
            }
        }
        if (logs.size() < 2) {
            return;
        }
        List<String> names = List.copyOf(logs);
        run.note("WARNING: " + names.size() + " vLLM logs each describe a server (" + String.join(", ", names)
                + "): the ledger lines take each rank's last figure across them (" + names.get(names.size() - 1)
                + " last); the findings treat each log as its own instance. If they are ranks of one server, tag"
                + " each with its rank (run.json evidence[].rank); if they are instances sharing the devices, see"
                + " the findings for their shares");
    }
}

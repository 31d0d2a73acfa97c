package io.hbmledger.ledger.owner;

import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.checkpoint.CheckpointWeightsRule;
import io.hbmledger.ledger.vllm.OomRule;
import io.hbmledger.ledger.vllm.VllmFiguresRule;
import java.util.Optional;

/**
 * Owner of the weights line. Precedence, by design and not by rule order:
 * <ol>
 *   <li>vLLM's weights figure for the device's rank ({@link VllmFiguresRule#figure}, reported):
 *       the allocator's own count of what loading took;</li>
 *   <li>the checkpoint's share of the device ({@link CheckpointWeightsRule#standIn}, estimated
 *       from safetensors headers and vLLM's sharding rules), when the log prints none;</li>
 *   <li>unknown, saying what is missing; no line in an out-of-memory ledger, whose
 *       torch_allocated holds the weights ({@link OomRule#allocated}).</li>
 * </ol>
 * {@link OomRule} may take the line out of the sum (it sits inside torch_allocated).
 */
public final class WeightsRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        VllmFiguresRule.figure(ev, d, Component.WEIGHTS)
                .or(() -> CheckpointWeightsRule.standIn(ev, d))
                .or(() -> OomRule.allocated(ev, d).isPresent() ? Optional.empty()
                        : Optional.of(Entry.unknown(Component.WEIGHTS,
                                VllmFiguresRule.missing(ev, "no weights line for this rank in the vLLM log"))))
                .ifPresent(d::decide);
    }
}

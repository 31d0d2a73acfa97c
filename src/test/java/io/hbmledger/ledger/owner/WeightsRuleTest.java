package io.hbmledger.ledger.owner;

import static io.hbmledger.ledger.owner.HandMadeRun.GIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link WeightsRule}: vLLM's figure first, else the checkpoint's share, else an unknown line. */
class WeightsRuleTest {

    private static Entry weights(EvidenceSet ev, DeviceDraft d) {
        new WeightsRule().apply(ev, d);
        return d.get(Component.WEIGHTS).orElseThrow();
    }

    @Test
    void vllmsFigureForTheRankIsTheLineReported() {
        // "Loading model weights took 12.5000 GB" (vLLM's GB is GiB): 12.5 x 2^30 = 13421772800 B
        EvidenceSet ev = new HandMadeRun().withLog()
                .logBytes(Quantity.WEIGHTS, 13_421_772_800L, 7, "12.5000 GB").evidence();
        Entry e = weights(ev, new DeviceDraft(0, List.of(0)));

        assertThat(e.bytes()).isEqualTo(13_421_772_800L);
        assertThat(e.confidence()).isEqualTo(Confidence.REPORTED);
        assertThat(e.sources().get(0).line()).isEqualTo(7);
        assertThat(e.counted()).isTrue();
    }

    @Test
    void withoutAFigureTheLineIsUnknownAndSaysWhatIsMissing() {
        Entry withLog = weights(new HandMadeRun().withLog().evidence(), new DeviceDraft(0, List.of(0)));
        Entry noLog = weights(new HandMadeRun().evidence(), new DeviceDraft(0, List.of(0)));

        assertThat(withLog.known()).isFalse();
        assertThat(withLog.note()).isEqualTo("no weights line for this rank in the vLLM log");
        assertThat(noLog.note()).isEqualTo("no vLLM log in the run");
    }

    @Test
    void anOutOfMemoryLedgerGetsNoUnknownWeightsLineBesideTorchAllocated() {
        // "28.00 GiB already allocated": torch_allocated holds the weights, so no "unknown" line
        EvidenceSet ev = new HandMadeRun().withLog()
                .logBytes(Quantity.OOM_ALLOCATED, 28 * GIB, 40, "28.00 GiB").evidence();
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        d.decideMoment("oom");
        new WeightsRule().apply(ev, d);

        assertThat(d.get(Component.WEIGHTS)).isEmpty();
    }
}

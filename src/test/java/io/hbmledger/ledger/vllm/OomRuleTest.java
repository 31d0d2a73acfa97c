package io.hbmledger.ledger.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.run.Moment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link OomRule} owns torch_allocated and refines the vLLM lines inside it. */
class OomRuleTest {

    private static final long GIB = 1L << 30;

    private static TaggedObservation line(Quantity q, long bytes, int line, String text) {
        return new TaggedObservation(Observation.bytes(q, bytes, line, text), "serve.log", EvidenceFormat.VLLM_LOG,
                Moment.STARTUP, 0, null);
    }

    @Test
    void torchAllocatedIsCountedAndTheWeightsInsideItAreTakenOutOfTheSum() {
        EvidenceSet ev = new EvidenceSet(List.of(
                line(Quantity.WEIGHTS, 12 * GIB, 7, "12.0000 GB"),
                line(Quantity.OOM_ALLOCATED, 28 * GIB, 40, "28.00 GiB")),
                List.of(new EvidenceSet.FileInfo("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP)),
                Layout.of(1, 1, List.of(0), List.of(), null));
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        d.decideMoment("oom");
        d.decide(new Entry(Component.WEIGHTS, 12 * GIB, Confidence.REPORTED, List.of(ev.observations().get(0).source()),
                "model weights", "startup", true, null));
        new OomRule().apply(ev, d);

        Entry torch = d.get(Component.TORCH_ALLOCATED).orElseThrow();
        assertThat(torch.bytes()).isEqualTo(30_064_771_072L); // 28 x 2^30
        assertThat(torch.counted()).isTrue();
        assertThat(d.get(Component.WEIGHTS).orElseThrow().counted()).isFalse();
        assertThat(d.refinements()).extracting(DeviceDraft.Refinement::component, DeviceDraft.Refinement::by)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Component.WEIGHTS, "OomRule"));
    }
}

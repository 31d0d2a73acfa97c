package io.hbmledger.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link DeviceDraft}: one owner per line, refinements named. */
class DeviceDraftTest {

    private static final Entry WEIGHTS = new Entry(Component.WEIGHTS, 1024L, Confidence.REPORTED, List.of(),
            "model weights", "startup", true, null);

    @Test
    void aSecondDecisionOfALineIsRefused() {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        d.decide(WEIGHTS);

        assertThatThrownBy(() -> d.decide(Entry.unknown(Component.WEIGHTS, "placeholder")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("weights line is decided once");
    }

    @Test
    void aRefinementTakesTheLineOutOfTheSumKeepsItsAmountAndIsRecorded() {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        d.decide(WEIGHTS);
        d.refine(Component.WEIGHTS, DeviceDraftTest.class, "inside torch_allocated");
        Entry e = d.get(Component.WEIGHTS).orElseThrow();

        assertThat(e.counted()).isFalse();
        assertThat(e.bytes()).isEqualTo(1024L);
        assertThat(e.note()).isEqualTo("model weights; inside torch_allocated");
        assertThat(d.refinements()).containsExactly(
                new DeviceDraft.Refinement(Component.WEIGHTS, "DeviceDraftTest", "inside torch_allocated"));
    }

    @Test
    void refiningAnAbsentOrUnknownLineChangesNothing() {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        d.decide(Entry.unknown(Component.KV_CACHE, "no KV figure"));
        d.refine(Component.KV_CACHE, DeviceDraftTest.class, "inside torch_allocated");
        d.refine(Component.WEIGHTS, DeviceDraftTest.class, "inside torch_allocated");

        assertThat(d.get(Component.KV_CACHE).orElseThrow().note()).isEqualTo("no KV figure");
        assertThat(d.get(Component.WEIGHTS)).isEmpty();
        assertThat(d.refinements()).isEmpty();
    }
}

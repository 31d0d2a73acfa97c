package io.hbmledger.ledger.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The vLLM servers of a run indexed once: the loader's index, built to read the deployment, is put
 * over the observations whose ranks it set afterwards, keeping the servers it found and taking the
 * retagged lines; other observations are indexed afresh.
 */
class VllmServersTest {

    private static final String LOG = "two-models.log";

    /** Two servers of different models in one log (as vllm #10533 pasted two start commands), ranks as tagged. */
    private static List<TaggedObservation> log(Integer rank) {
        List<TaggedObservation> out = new ArrayList<>();
        for (Observation o : List.of(
                Observation.value(Quantity.SERVER_START, 1, 1, "vllm serve Qwen/Qwen2.5-7B-Instruct"),
                Observation.value(Quantity.MODEL, 1, 1, "Qwen/Qwen2.5-7B-Instruct"),
                Observation.bytes(Quantity.WEIGHTS, 15_231_233_024L, 5, "14.19 GiB"),
                Observation.value(Quantity.SERVER_START, 1, 10, "vllm serve meta-llama/Llama-3.1-8B-Instruct"),
                Observation.value(Quantity.MODEL, 1, 10, "meta-llama/Llama-3.1-8B-Instruct"),
                Observation.bytes(Quantity.WEIGHTS, 16_060_522_496L, 15, "14.96 GiB"))) {
            out.add(new TaggedObservation(o, LOG, EvidenceFormat.VLLM_LOG, Moment.STARTUP, rank, null));
        }
        return out;
    }

    @Test
    void retaggedObservationsKeepTheServersFoundAndTakeTheNewTags() {
        VllmServers first = VllmServers.of(log(null));
        assertThat(first.servers(LOG)).containsExactly(1, 10);
        assertThat(first.used()).singleElement().satisfies(u -> assertThat(u.fromLine()).isEqualTo(10));
        // only the last model's weights stand in a device's ledger
        assertThat(first.lines(Quantity.WEIGHTS)).extracting(t -> t.o().line()).containsExactly(15);

        List<TaggedObservation> ranked = log(0);
        VllmServers over = first.over(ranked);
        assertThat(over.servers(LOG)).containsExactly(1, 10);
        assertThat(over.used()).isEqualTo(first.used());
        assertThat(over.observations()).isEqualTo(ranked);
        assertThat(over.lines(Quantity.WEIGHTS)).singleElement().satisfies(t -> {
            assertThat(t.o().line()).isEqualTo(15);
            assertThat(t.rank()).isZero();
        });
        assertThat(over.byLog().get(LOG)).allSatisfy(t -> assertThat(t.rank()).isZero());
    }

    @Test
    void otherLinesAreIndexedAfresh() {
        VllmServers first = VllmServers.of(log(null));
        List<TaggedObservation> one = log(null).subList(0, 3);
        VllmServers over = first.over(one);
        assertThat(over.servers(LOG)).isEqualTo(VllmServers.of(one).servers(LOG));
        assertThat(over.used()).isEmpty();
        assertThat(over.lines(Quantity.WEIGHTS)).extracting(t -> t.o().line()).containsExactly(5);
    }
}

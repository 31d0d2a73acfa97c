package io.hbmledger.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.vllm.ProfilePeakRule;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Figures of two server starts are never mixed; a negative derived amount is not shown (finding 3). */
class ServerStartsTest {

    private final List<TaggedObservation> obs = new ArrayList<>();
    private final List<EvidenceSet.FileInfo> files = List.of(new EvidenceSet.FileInfo("two-runs.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP));

    private void add(Observation o) {
        obs.add(new TaggedObservation(o, "two-runs.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP, null, null));
    }

    private static Entry entry(DeviceLedger d, String c) {
        return d.entries().stream().filter(e -> e.component().equals(c)).findFirst().orElseThrow();
    }

    @Test
    void negativeProfileRestIsUnknownAndWarns() {
        // No start markers, so nothing is set aside: 2667's utilization (line 8) with 5044's
        // figures (lines 70, 72 of the joined file). floor(0.8 x 31662800896 - 10700878950)
        // = 14629361766; minus weights 16394319666 = -1764957900 B (-1.64 GiB): impossible.
        add(Observation.value(Quantity.MEMORY_UTILIZATION, 0.8, 8, "0.8"));
        add(Observation.bytes(Quantity.WEIGHTS, 16394319666L, 70, "15.2684 GB"));
        add(Observation.bytes(Quantity.AVAILABLE_MEMORY, 10700878950L, 72, "10700878950"));
        add(Observation.bytes(Quantity.TOTAL_MEMORY, 31662800896L, 72, "31662800896"));
        DeviceLedger d = Attribution.standard().attribute(
                new EvidenceSet(obs, files, Layout.of(1, 1, List.of(0), List.of(), null))).devices().get(0);
        assertThat(entry(d, Component.PROFILE_PEAK_REST).known()).isFalse();
        assertThat(d.checks()).anySatisfy(c -> {
            assertThat(c.name()).isEqualTo(ProfilePeakRule.NAME);
            assertThat(c.status()).isEqualTo(Check.Status.WARN);
            assertThat(c.detail()).contains("-1764957900");
        });
    }

    @Test
    void onlyTheLastStartsFiguresAreUsed() {
        // vllm PR 10511's pasted log: "$ vllm serve ..." (line 1), TP1 figures, then
        // "$ vllm serve ... -tp 2" (line 12) and the TP2 figures
        add(Observation.value(Quantity.SERVER_START, 1, 1, "$ vllm serve"));
        add(Observation.bytes(Quantity.WEIGHTS, 16063177687L, 7, "14.96GiB"));
        add(Observation.bytes(Quantity.KV_CACHE_AVAILABLE, 57219701801L, 10, "53.29GiB"));
        add(Observation.value(Quantity.SERVER_START, 1, 12, "$ vllm serve"));
        add(Observation.bytes(Quantity.WEIGHTS, 8031588844L, 18, "7.48GiB"));
        Ledger l = Attribution.standard().attribute(
                new EvidenceSet(obs, files, Layout.of(2, 1, List.of(0, 1), List.of(), null)));
        for (DeviceLedger d : l.devices()) {
            assertThat(entry(d, Component.WEIGHTS).bytes()).isEqualTo(8031588844L);
            assertThat(entry(d, Component.WEIGHTS).sources().get(0).line()).isEqualTo(18);
            // the TP1 run's KV figure (line 10) is not the TP2 run's
            assertThat(entry(d, Component.KV_CACHE).known()).isFalse();
        }
        assertThat(l.notes()).anySatisfy(n -> assertThat(n).contains("2 server starts").contains("line 1")
                .contains("from line 12"));
    }

    /**
     * The grouping the ledger's lookups use, worked out once: the start command of
     * Llama-3.2-11B-Vision (line 1), its weights (vllm PR #12126, 19.86 GiB, line 2), then
     * facebook/opt-125m's engine config (vllm PR #3120, line 5) and weights (244.61 MB x 2^20 =
     * 256492175 B, line 7). Only opt-125m's lines stand in the ledger; the index says so.
     */
    @Test
    void serversAreGroupedOnceAndTheLastModelsLinesKept() {
        add(Observation.value(Quantity.SERVER_START, 1, 1, "$ vllm serve"));
        add(Observation.value(Quantity.MODEL, 1, 1, "meta-llama/Llama-3.2-11B-Vision-Instruct"));
        add(Observation.bytes(Quantity.WEIGHTS, 21324512625L, 2, "19.86GiB"));
        add(Observation.value(Quantity.SERVER_START, 1, 5, "Initializing an LLM engine"));
        add(Observation.value(Quantity.MODEL, 1, 5, "facebook/opt-125m"));
        add(Observation.bytes(Quantity.WEIGHTS, 256492175L, 7, "244.61 MB"));
        EvidenceSet ev = new EvidenceSet(obs, files, Layout.of(1, 1, List.of(0), List.of(), null));
        assertThat(ev.vllmServers().servers("two-runs.log")).containsExactly(1, 5);
        assertThat(ev.vllm(Quantity.WEIGHTS)).extracting(t -> t.o().line()).containsExactly(7);
        assertThat(ev.vllm(Quantity.MODEL)).extracting(t -> t.o().text()).containsExactly("facebook/opt-125m");
        assertThat(ev.vllmServers().used()).containsExactly(
                new io.hbmledger.ledger.vllm.VllmServers.Used("two-runs.log", 2, 5, "facebook/opt-125m"));
    }

    /**
     * vLLM prints "Automatically detected platform cuda." before its first start marker: the
     * platform line is the server's that follows it, not the one before. A 310P3 server
     * (vllm-ascend #1425: "# npu blocks: 466, # CPU blocks: 1820" on line 24), then a CUDA server
     * whose platform line (40) comes before its "vLLM API server version" (41).
     */
    @Test
    void aPlatformLineBelongsToTheServerAfterIt() {
        add(Observation.value(Quantity.SERVER_START, 1, 1, "vllm serve /models/Qwen2.5-3B-Instruct"));
        add(Observation.value(Quantity.MODEL, 1, 1, "/models/Qwen2.5-3B-Instruct"));
        add(Observation.value(Quantity.DEVICE_TYPE, 1, 24, "npu"));
        add(Observation.value(Quantity.GPU_BLOCKS, 466, 24, "466"));
        add(Observation.value(Quantity.DEVICE_TYPE, 1, 40, "cuda"));
        add(Observation.value(Quantity.SERVER_START, 1, 41, "vLLM API server version"));
        add(Observation.value(Quantity.MODEL, 1, 42, "facebook/opt-125m"));
        EvidenceSet ev = new EvidenceSet(obs, files, Layout.of(1, 1, List.of(0), List.of(), null));
        assertThat(ev.vllm(Quantity.DEVICE_TYPE)).extracting(t -> t.o().line()).containsExactly(40);
        assertThat(Accelerator.of(ev)).isEqualTo(Accelerator.Kind.GPU);
    }
}

package io.hbmledger.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.check.KvTokensCheck;
import io.hbmledger.ledger.checkpoint.CheckpointTotalRule;
import io.hbmledger.ledger.checkpoint.CheckpointWeightsRule;
import io.hbmledger.run.Moment;
import io.hbmledger.weights.ParallelLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checkpoint rules on hand-built evidence sets (pure: no files). */
class CheckpointRulesTest {

    private final List<TaggedObservation> obs = new ArrayList<>();
    private final List<EvidenceSet.FileInfo> files = new ArrayList<>();

    private void file(String name, EvidenceFormat format, Moment m) {
        files.add(new EvidenceSet.FileInfo(name, format, m));
    }

    private void add(String file, Observation o) {
        EvidenceSet.FileInfo f = files.stream().filter(x -> x.file().equals(file)).findFirst().orElseThrow();
        obs.add(new TaggedObservation(o, file, f.format(), f.moment(), null, null));
    }

    private static Check check(DeviceLedger d, String name) {
        return d.checks().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no check " + name + " in " + d.checks()));
    }

    /*
     * vllm-ascend issue 2667 (corpus vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log):
     * Llama-3.1-8B with an EAGLE3 drafter, TP 1. Line 47 "Available memory: 34184553369" is the KV
     * budget, line 48 "GPU KV cache size: 252,800 tokens". Llama-3.1-8B's config.json (32 layers,
     * 8 KV heads, head_dim 128, bfloat16) gives 2 x 32 x 8 x 128 x 2 = 131,072 B per token.
     *   252,800 x 131,072 = 33,135,001,600 B; left over 34,184,553,369 - 33,135,001,600 = 1,049,551,769 B
     *   one layer at 252,800 tokens: 33,135,001,600 / 32 = 1,035,468,800 B -> 1.01 layers' worth:
     *   the drafter's own KV layer shares the budget (with 33 layers, 252,800 x 135,168 = 34,170,470,400 B
     *   leaves 14,082,969 B, less than one 128-token block of 17,301,504 B).
     */
    @Test
    void aDraftersKvLayerShowsAsLeftOverLayers() {
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        file("config.json", EvidenceFormat.MODEL_CONFIG, Moment.STATIC);
        String p = "EngineCore_0 pid=1440043";
        add("serve.log", Observation.bytes(Quantity.AVAILABLE_MEMORY, 34184553369L, 47, "34184553369").in(Context.worker(p)));
        add("serve.log", Observation.value(Quantity.KV_CACHE_TOKENS, 252800, 48, "252,800").in(Context.worker(p)));
        add("config.json", Observation.bytes(Quantity.KV_BYTES_PER_TOKEN, 131072, 1, "131072"));
        add("config.json", Observation.value(Quantity.NUM_KV_HEADS, 8, 1, "8"));
        add("config.json", Observation.value(Quantity.NUM_LAYERS, 32, 1, "32"));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null)));
        DeviceLedger d = l.devices().get(0);
        // the budget stays the KV line; tokens x bytes is the check
        assertThat(d.entries().stream().filter(e -> e.component().equals(Component.KV_CACHE)).findFirst().orElseThrow()
                .bytes()).isEqualTo(34184553369L);
        Check c = check(d, KvTokensCheck.CHECK);
        assertThat(c.status()).isEqualTo(Check.Status.WARN);
        assertThat(c.detail()).contains("252800 tokens x 131072 B/token").contains("= 33135001600 B")
                .contains("left over 1049551769 B").contains("1.01 layers' worth").contains("drafter");
    }

    /*
     * DeepSeek-R1 (MLA) at TP 16, config.json observations as the model-config reader reports them:
     * 61 x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B = 70,272 B per token, whole on every
     * rank (the latent is not split by heads; dividing by TP would give 4,392 B).
     * 100,000 tokens x 70,272 = 7,027,200,000 B; vLLM printed "6.54 GiB" = 7,022,271,529 B
     * (round(6.54 x 2^30)): 4,928,471 B short, within the print rounding of 0.005 GiB = 5,368,710 B.
     */
    @Test
    void mlaKeepsTheWholeLatentOnEveryRankAndPrintRoundingIsAllowed() {
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        file("config.json", EvidenceFormat.MODEL_CONFIG, Moment.STATIC);
        add("serve.log", Observation.bytes(Quantity.KV_CACHE_AVAILABLE, 7022271529L, 10, "6.54 GiB"));
        add("serve.log", Observation.value(Quantity.KV_CACHE_TOKENS, 100000, 11, "100,000"));
        add("config.json", Observation.bytes(Quantity.KV_BYTES_PER_TOKEN, 70272, 1, "70272"));
        add("config.json", Observation.value(Quantity.KV_LORA_RANK, 512, 1, "512"));
        List<Integer> devices = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            devices.add(i);
        }
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(16, 1, devices, List.of(), null)));
        Check c = check(l.devices().get(7), KvTokensCheck.CHECK);
        assertThat(c.status()).isEqualTo(Check.Status.PASS);
        assertThat(c.detail()).contains("100000 tokens x 70272 B/token").contains("MLA").contains("left over -4928471 B");
    }

    @Test
    void printRoundingIsHalfTheLastDigit() {
        // ceil(0.005 x 2^30) = ceil(5368709.12)
        assertThat(KvTokensCheck.rounding("24.00 GiB")).isEqualTo(5_368_710L);
        // "15.7847 GB": 0.00005 x 2^30 = 53687.0912
        assertThat(KvTokensCheck.rounding("15.7847 GB")).isEqualTo(53_688L);
        // raw byte counts (vllm-ascend "Available memory: N") are exact
        assertThat(KvTokensCheck.rounding("34184553369")).isZero();
    }

    @Test
    void pipelineStageOfARankFollowsVllmsRankOrder() {
        // global rank = pp_rank x tp + tp_rank: with TP 4 and PP 2, ranks 4..7 are stage 1
        ParallelLayout l = new ParallelLayout(4, 1, 2, false);
        assertThat(CheckpointWeightsRule.stageOf(3, l)).isZero();
        assertThat(CheckpointWeightsRule.stageOf(5, l)).isEqualTo(1);
        assertThat(CheckpointWeightsRule.stageOf(5, ParallelLayout.tp(8))).isZero();
    }

    @Test
    void withoutACheckpointNothingIsAdded() {
        Ledger l = Attribution.standard().attribute(LedgerFixtures.a3());
        DeviceLedger d = l.devices().get(0);
        assertThat(d.entries()).noneMatch(e -> e.component().equals(CheckpointWeightsRule.COMPONENT));
        assertThat(d.checks()).noneMatch(c -> c.name().equals(CheckpointWeightsRule.CHECK));
        assertThat(l.processLevel()).noneMatch(p -> p.component().equals(CheckpointTotalRule.COMPONENT));
    }
}

package io.hbmledger.weights;

/**
 * How vLLM places one tensor on the devices of a TP group, following
 * {@code vllm/model_executor/layers/linear.py} (ColumnParallelLinear, RowParallelLinear,
 * QKVParallelLinear, ReplicatedLinear), {@code vocab_parallel_embedding.py}
 * (VocabParallelEmbedding, ParallelLMHead, pad_vocab_size) and
 * {@code fused_moe/config.py} (FusedMoEParallelConfig.make).
 */
public enum ShardRule {
    COLUMN_PARALLEL("column-parallel", "output dim split over TP: bytes / tp"),
    ROW_PARALLEL("row-parallel", "input dim split over TP: bytes / tp (a bias stays whole)"),
    KV_HEADS_REPLICATED("KV heads replicated (TP > KV heads)",
            "QKVParallelLinear: each rank keeps 1 whole KV head when tp >= total KV heads"),
    VOCAB_PARALLEL("vocab-parallel, padded to 64", "rows padded to a multiple of 64 (pad_vocab_size), then / tp"),
    MLA_REPLICATED("MLA projections: down-projections replicated",
            "q_a_proj / kv_a_proj_with_mqa are ReplicatedLinear: whole on every rank"),
    MLA_COLUMN("MLA projections: up-projections column-parallel", "q_b_proj / kv_b_proj split by heads over TP"),
    EXPERT_TP("experts TP-sharded over tp x dp", "without EP every expert is split over tp x dp ranks"),
    EXPERT_PARALLEL("expert-parallel", "with EP whole experts are spread over tp x dp ranks: ceil(E / ep) per rank"),
    REPLICATED("replicated", "whole on every rank"),
    ROUTER_REPLICATED("router: replicated", "the MoE router gate (ReplicatedLinear) is whole on every rank"),
    TIED("tied embeddings", "lm_head shares the embedding's memory: no extra bytes"),
    NOT_LOADED("not loaded by the main model", "only a drafter (MTP speculative decoding) loads it");

    private final String label;
    private final String meaning;

    ShardRule(String label, String meaning) {
        this.label = label;
        this.meaning = meaning;
    }

    public String label() {
        return label;
    }

    public String meaning() {
        return meaning;
    }
}

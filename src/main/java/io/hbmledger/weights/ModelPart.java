package io.hbmledger.weights;

/**
 * Where a tensor belongs in the model (embedding, attention, experts ...), for the weights table.
 * Not a ledger line: those are {@link io.hbmledger.ledger.Component}.
 */
public enum ModelPart {
    EMBEDDING("embedding"),
    ATTENTION("attention"),
    MLP("MLP"),
    EXPERTS("experts"),
    SHARED_EXPERT("shared expert"),
    NORMS("norms"),
    LM_HEAD("lm_head"),
    VISION("vision"),
    MTP("MTP/drafter"),
    QUANT_SCALES("quantization scales"),
    OTHER("other");

    private final String label;

    ModelPart(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}

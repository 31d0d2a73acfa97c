package io.hbmledger.weights;

/** Where a tensor belongs in the model, for the per-component table. */
public enum Component {
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

    Component(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}

package io.hbmledger.weights;

/**
 * How vLLM spreads one model over devices.
 *
 * @param tp tensor-parallel size ({@code --tensor-parallel-size})
 * @param dp data-parallel size ({@code --data-parallel-size}); dense weights are replicated
 *     per DP rank, MoE experts are sharded over tp x dp
 * @param pp pipeline-parallel size ({@code --pipeline-parallel-size}); layers are split
 * @param ep expert parallelism ({@code --enable-expert-parallel}): experts are placed whole,
 *     over tp x dp ranks, instead of being TP-sharded
 */
public record ParallelLayout(int tp, int dp, int pp, boolean ep) {

    public ParallelLayout {
        if (tp < 1 || dp < 1 || pp < 1) {
            throw new IllegalArgumentException("tp, dp and pp must be at least 1, got tp=" + tp + " dp=" + dp + " pp=" + pp);
        }
    }

    public static ParallelLayout tp(int tp) {
        return new ParallelLayout(tp, 1, 1, false);
    }

    /**
     * Devices the MoE layers spread over: tp x dp (vLLM {@code FusedMoEParallelConfig.make}
     * flattens TP across DP: "there are actually dp_size_ * tp_size_ devices").
     */
    public int moeGroup() {
        return tp * dp;
    }

    /** Devices in the whole deployment: tp x dp x pp. */
    public int devices() {
        return tp * dp * pp;
    }

    @Override
    public String toString() {
        return "TP " + tp + (dp > 1 ? ", DP " + dp : "") + (pp > 1 ? ", PP " + pp : "") + (ep ? ", EP " + moeGroup() : "");
    }
}

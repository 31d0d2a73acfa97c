package io.hbmledger.ledger;

import java.util.Locale;

/** A consistency check on one device's ledger (report-v1 {@code checks}). */
public record Check(String name, Status status, String detail) {

    public enum Status {
        PASS, WARN, FAIL, SKIPPED;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final String LEDGER_SUM_VS_USED = "ledger_sum_vs_used";
    public static final String VLLM_BUDGET_VS_DEVICE = "vllm_budget_vs_device";
    public static final String MIXED_MOMENTS = "mixed_moments";
    public static final String OOM = "out_of_memory";
    public static final String TOTAL_VS_CAPACITY = "vllm_total_vs_capacity";
}

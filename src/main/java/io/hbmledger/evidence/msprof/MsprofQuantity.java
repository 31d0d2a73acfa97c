package io.hbmledger.evidence.msprof;

/**
 * Evidence-contract quantities taken from msprof memory tables
 * ({@code shared/contracts/evidence-v1.md}, msprof section).
 */
public enum MsprofQuantity {
    /** npu_module_mem Total Reserved, per component. */
    MODULE_RESERVED_PEAK("module_reserved_peak"),
    /** npu_mem hbm of the {@code app} event: this process's HBM. */
    APP_HBM_PEAK("app_hbm_peak"),
    /** npu_mem hbm of the {@code device} event: the whole device's HBM. */
    DEVICE_HBM_PEAK("device_hbm_peak"),
    /** memory_record Total Allocated, per component (APP / PTA / GE / PTA+GE). */
    ALLOCATED_PEAK("allocated_peak"),
    /** memory_record Total Reserved, per component. */
    RESERVED_PEAK("reserved_peak"),
    /** memory_record Total Active, per component. */
    ACTIVE_PEAK("active_peak"),
    /** operator_memory: sum of Size over all rows. */
    OPERATOR_BYTES_TOTAL("operator_bytes_total"),
    /** operator_memory: sum of Size over rows without a release time. */
    OPERATOR_BYTES_UNRELEASED("operator_bytes_unreleased"),
    /** operator_memory: number of rows (a count, not bytes). */
    OPERATOR_COUNT("operator_count"),
    /** static_op_mem: the TOTAL row of each graph, component = graph id. */
    STATIC_GRAPH_TOTAL("static_graph_total");

    private final String contractName;

    MsprofQuantity(String contractName) {
        this.contractName = contractName;
    }

    /** The snake_case name printed by {@code evidence}. */
    public String contractName() {
        return contractName;
    }
}

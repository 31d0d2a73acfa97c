package io.hbmledger.evidence.msprof;

import io.hbmledger.evidence.Quantity;

/**
 * Evidence-contract quantities taken from msprof memory tables
 * ({@code shared/contracts/evidence-v1.md}, msprof section).
 */
public enum MsprofQuantity {
    /** npu_module_mem Total Reserved, per component. */
    MODULE_RESERVED_PEAK(Quantity.MODULE_RESERVED_PEAK),
    /** npu_mem hbm of the {@code app} event: this process's HBM. */
    APP_HBM_PEAK(Quantity.APP_HBM_PEAK),
    /** npu_mem hbm of the {@code device} event: the whole device's HBM. */
    DEVICE_HBM_PEAK(Quantity.DEVICE_HBM_PEAK),
    /** memory_record Total Allocated, per component (APP / PTA / GE / PTA+GE). */
    ALLOCATED_PEAK(Quantity.ALLOCATED_PEAK),
    /** memory_record Total Reserved, per component. */
    RESERVED_PEAK(Quantity.RESERVED_PEAK),
    /** memory_record Total Active, per component. */
    ACTIVE_PEAK(Quantity.ACTIVE_PEAK),
    /** operator_memory: sum of Size over all rows. */
    OPERATOR_BYTES_TOTAL(Quantity.OPERATOR_BYTES_TOTAL),
    /** operator_memory: sum of Size over rows without a release time. */
    OPERATOR_BYTES_UNRELEASED(Quantity.OPERATOR_BYTES_UNRELEASED),
    /** operator_memory: number of rows (a count, not bytes). */
    OPERATOR_COUNT(Quantity.OPERATOR_COUNT),
    /** static_op_mem: the TOTAL row of each graph, component = graph id. */
    STATIC_GRAPH_TOTAL(Quantity.STATIC_GRAPH_TOTAL);

    private final Quantity quantity;

    MsprofQuantity(Quantity quantity) {
        this.quantity = quantity;
    }

    /** The evidence quantity this series is reported as. */
    public Quantity quantity() {
        return quantity;
    }

    /** The snake_case name printed by {@code evidence}. */
    public String contractName() {
        return quantity.contractName();
    }
}

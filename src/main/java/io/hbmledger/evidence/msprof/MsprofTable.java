package io.hbmledger.evidence.msprof;

/**
 * The memory tables of an msprof or torch_npu profiler export that hbm-ledger reads, with the
 * CSV file-name stem and the SQLite table name of each.
 *
 * <p>CSV layouts followed (header names, units in parentheses):
 * <ul>
 *   <li>msprof {@code npu_mem_*.csv}: {@code Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)}
 *       (msprof analysis {@code NpuMemoryAssembler}, CANN 8.x; event is {@code app} or {@code device}).</li>
 *   <li>msprof {@code npu_module_mem_*.csv}: {@code Device_id,Component,Timestamp(us),Total Reserved(KB),Device};
 *       torch_npu {@code ASCEND_PROFILER_OUTPUT/npu_module_mem.csv}: {@code Component,Timestamp(us),Total Reserved(MB),Device}.
 *       The CANN profiling guide (npu_module_mem) says -1 means only frees were seen.</li>
 *   <li>torch_npu {@code memory_record.csv}: {@code Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB)[,Total Active(MB)][,Stream Ptr],Device Type}.</li>
 *   <li>torch_npu {@code operator_memory.csv}: {@code Name,Size(KB),Allocation Time(us),Release Time(us),...,Device Type};
 *       an empty release time means the block was not freed inside the profiled window.</li>
 *   <li>msprof {@code static_op_mem_*.csv}: {@code Device_id,Op Name,Model Name,Graph ID,Node Index Start,Node Index End,Size(KB)};
 *       the {@code TOTAL} row of a graph is its static memory (ops reuse memory, so the op sizes do not add up to it);
 *       4294967295 in Node Index End means "never freed".</li>
 * </ul>
 * SQLite tables ({@code msprof_*.db}, {@code ascend_pytorch_profiler_*.db}) carry bytes and nanoseconds.
 */
public enum MsprofTable {
    NPU_MEM("npu_mem", "NPU_MEM"),
    NPU_MODULE_MEM("npu_module_mem", "NPU_MODULE_MEM"),
    MEMORY_RECORD("memory_record", "MEMORY_RECORD"),
    OPERATOR_MEMORY("operator_memory", "OP_MEMORY"),
    STATIC_OP_MEM("static_op_mem", "STATIC_OP_MEM");

    private final String csvStem;
    private final String dbTable;

    MsprofTable(String csvStem, String dbTable) {
        this.csvStem = csvStem;
        this.dbTable = dbTable;
    }

    /** The CSV file-name stem, e.g. {@code npu_module_mem} for {@code npu_module_mem_20250109.csv}. */
    public String csvStem() {
        return csvStem;
    }

    /** The SQLite table name. */
    public String dbTable() {
        return dbTable;
    }

    /** True for the tables sampled at a fixed rate on every device: the large ones. */
    public boolean hot() {
        return this == NPU_MEM || this == NPU_MODULE_MEM;
    }
}

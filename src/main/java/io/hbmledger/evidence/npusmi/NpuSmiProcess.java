package io.hbmledger.evidence.npusmi;

/**
 * One row of the process table of {@code npu-smi info}, as {@link NpuSmiInfoParser#processes} reads it:
 * which logical device a process holds memory on. collect uses it to tell whether devices are idle
 * and when a stopped server has released them.
 *
 * @param npu the NPU id of the row
 * @param chip the Chip id of the row
 * @param device the logical device id (the {@code ASCEND_RT_VISIBLE_DEVICES} number): the Phy-ID
 *     (Atlas A3) or Device (310P) column of the chip table when it has one, else the NPU id
 * @param pid the process id, null when the row's pid is not a number
 * @param name the process name as printed, "" when the cell is blank
 * @param memoryBytes {@code Process memory(MB)} in bytes (npu-smi's MB are MiB)
 */
public record NpuSmiProcess(int npu, int chip, int device, Long pid, String name, long memoryBytes) {

    /** The memory as npu-smi printed it, in MiB. */
    public long memoryMib() {
        return memoryBytes >> 20;
    }
}

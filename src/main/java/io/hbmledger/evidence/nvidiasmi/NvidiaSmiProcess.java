package io.hbmledger.evidence.nvidiasmi;

/**
 * One row of {@code nvidia-smi --query-compute-apps}, as {@link NvidiaSmiCsvParser#processes} reads it.
 *
 * @param index the GPU's nvidia-smi index (matched through gpu_uuid / gpu_bus_id), null when the
 *     file names no GPU row to match
 * @param pid the process id
 * @param name the process name as printed, null when blank
 * @param memoryBytes {@code used_memory} in bytes, null where nvidia-smi prints {@code [N/A]}
 *     (MIG instances, Windows WDDM)
 */
public record NvidiaSmiProcess(Integer index, long pid, String name, Long memoryBytes) {
}

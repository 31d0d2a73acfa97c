package io.hbmledger.plan;

/**
 * One device model's memory as the planner needs it.
 *
 * @param name the name as the user gives it ({@code 910B2}, {@code H100})
 * @param capacityBytes the device's memory as its tools report it (npu-smi / nvidia-smi total), bytes
 * @param capacitySource where that figure comes from
 * @param torchTotalBytes the total the framework sees (torch / torch_npu {@code mem_get_info}, vLLM's
 *     "total memory"), bytes; null when no log of this device model has shown it
 * @param torchTotalSource where the framework total comes from, or why it is not known
 * @param ascend true for Ascend NPUs (HCCL, CANN runtime, block size 128), false for NVIDIA GPUs
 */
public record DeviceSpec(String name, long capacityBytes, String capacitySource, Long torchTotalBytes,
                         String torchTotalSource, boolean ascend) {

    /** vLLM's default KV block size: 128 tokens on Ascend (vllm-ascend), 16 on CUDA. */
    public int defaultBlockSize() {
        return ascend ? 128 : 16;
    }
}

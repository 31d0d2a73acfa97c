package io.hbmledger.verdict;

import java.util.List;

/**
 * What the device samples say about one device at the ledger's moment.
 *
 * @param device the ledger's name for it, e.g. {@code npu:0/chip:0}
 * @param model the device model as the sample names it (910B4, H100 ...), or null
 * @param capacity total memory as npu-smi / nvidia-smi show it, or null
 * @param used memory in use at the sample, or null
 * @param processes the processes the sample lists on this device
 */
public record DeviceFacts(String device, String model, Figure capacity, Figure used,
                          List<ProcessFacts> processes) {

    public DeviceFacts {
        processes = List.copyOf(processes);
    }

    /**
     * One process on the device.
     *
     * @param server true only when the evidence says this pid is the server's (its log names
     *     the pid, {@code --server-pid}, or the collect record), never from its name alone
     */
    public record ProcessFacts(long pid, String name, Figure bytes, boolean server) {
    }
}

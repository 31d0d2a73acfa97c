package io.hbmledger.verdict;

import io.hbmledger.run.Moment;
import java.util.List;

/**
 * What the device samples say about one device at the ledger's moment.
 *
 * @param device the ledger's name for it, e.g. {@code npu:0/chip:0}
 * @param model the device model as the sample names it (910B4, H100 ...), or null
 * @param capacity total memory as npu-smi / nvidia-smi show it, or null
 * @param used memory in use at the sample, or null
 * @param processes the processes the sample lists on this device
 * @param deployed true for a device of the deployment's ledger (given, or assumed as rank i on
 *     device i); false for a card a sample only shows beside them
 * @param sample the npu-smi / nvidia-smi sample {@code used} was read from, or null when used
 *     is unknown or came from other evidence
 */
public record DeviceFacts(String device, String model, Figure capacity, Figure used,
                          List<ProcessFacts> processes, boolean deployed, Sample sample) {

    public DeviceFacts {
        processes = List.copyOf(processes);
    }

    /** A device known only from a sample's figures, with no tie to the deployment or its sample's moment. */
    public DeviceFacts(String device, String model, Figure capacity, Figure used, List<ProcessFacts> processes) {
        this(device, model, capacity, used, processes, false, null);
    }

    /**
     * One process on the device.
     *
     * @param server true only when the evidence says this pid is the server's (its log names
     *     the pid, {@code --server-pid}, or the collect record), never from its name alone
     * @param beforeStart true when only the idle sample taken before the server started lists it
     *     (no sample at the ledger's moment lists processes)
     */
    public record ProcessFacts(long pid, String name, Figure bytes, boolean server, boolean beforeStart) {

        /** A process of the sample at the ledger's moment. */
        public ProcessFacts(long pid, String name, Figure bytes, boolean server) {
            this(pid, name, bytes, server, false);
        }
    }

    /**
     * The device sample a used figure was read from.
     *
     * @param moment when it was taken, as run.json, {@code --moment} or the file's name say; null
     *     when nothing says so
     */
    public record Sample(Moment moment) {
    }
}

package io.hbmledger.collect;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The device tool a collection samples: npu-smi on Ascend ({@link NpuSmi}), nvidia-smi on NVIDIA
 * GPUs ({@link NvidiaSmi}). One sample is one file in the run, kept exactly as the tool printed it.
 */
public interface DeviceSmi {

    /** The program's name, for files and messages: "npu-smi" or "nvidia-smi". */
    String tool();

    /** What one sample runs, for run.json's evidence notes. */
    String sampleCommand();

    /** The run-relative file of sample {@code seq} at {@code moment}, e.g. nvidia-smi/ready-001.csv. */
    String sampleFile(String moment, int seq);

    Duration timeout();

    /** One sample; check {@link CommandResult#timedOut()} and the exit code. */
    CommandResult sample() throws IOException;

    /** The processes a sample shows on the given logical devices, as "device D: pid P NAME (N MiB)". */
    List<Held> processes(String sample);

    /**
     * A process holding memory on a device.
     *
     * @param device logical device id, null when the sample does not say
     * @param pid process id, null when not a number
     * @param text how messages name it
     */
    record Held(Integer device, Long pid, String text) {
    }
}

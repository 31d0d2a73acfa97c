package io.hbmledger.collect;

import java.time.Duration;

/**
 * Knobs of one collection. Defaults suit a real host; tests shrink the intervals.
 *
 * @param baselineSamples  idle npu-smi samples before the server starts
 * @param readySamples     samples once ready, before any request
 * @param afterSamples     samples after the load, server still up
 * @param sampleInterval   pause between those samples
 * @param loadInterval     pause between samples during the load
 * @param npuSmiTimeout    longest wait for one npu-smi run
 * @param readyTimeout     longest wait for /health and /v1/models
 * @param exportTimeout    longest wait for msprof --export
 * @param copyTimeout      longest silence of the runtime directory transfer (no byte for that long fails it)
 * @param msprofHz         msprof --sys-hardware-mem-freq, or null to run without msprof
 * @param stop             the stop ladder's waits
 * @param workload         the load
 * @param apiKey           API key for the server (sent, never recorded), or null
 */
public record CollectSettings(int baselineSamples, int readySamples, int afterSamples, Duration sampleInterval,
                              Duration loadInterval, Duration npuSmiTimeout, Duration readyTimeout,
                              Duration exportTimeout, Duration copyTimeout, Integer msprofHz,
                              Executions.StopTimeouts stop, Workload.Spec workload, String apiKey) {

    public static CollectSettings defaults() {
        return new CollectSettings(3, 3, 3, Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofMinutes(30), Duration.ofMinutes(10), Duration.ofMinutes(2), 50,
                Executions.StopTimeouts.defaults(), Workload.Spec.defaults(), null);
    }
}

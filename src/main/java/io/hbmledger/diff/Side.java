package io.hbmledger.diff;

import io.hbmledger.settings.ServingSettings;
import java.util.List;
import java.util.Map;

/**
 * One side of a diff: a run's ledger devices as amounts per component, its settings and the
 * total its engine saw (for the expected effect of a utilization change).
 *
 * @param name the run directory or report.json as named
 * @param devices the ledger's devices, in ledger order
 * @param settings what the run says about how it was served
 * @param totalSeen the total the engine saw, bytes, or null
 * @param totalSeenSource where that total was read, or null
 */
public record Side(String name, List<Device> devices, ServingSettings settings, Long totalSeen, String totalSeenSource) {

    public Side {
        devices = List.copyOf(devices);
    }

    /**
     * @param key the physical device as the ledger names it ({@code npu:4/chip:0}, {@code device:2})
     * @param deviceId the logical id the server used, or null
     * @param amounts component -> amount, in ledger order (capacity and used included)
     */
    public record Device(String key, Integer deviceId, Map<String, Amount> amounts) {
    }

    /**
     * @param bytes null when unknown
     * @param confidence report-v1 confidence word
     * @param source the first evidence line, {@code file:line "text"}, or null
     */
    public record Amount(Long bytes, String confidence, String source) {
    }
}

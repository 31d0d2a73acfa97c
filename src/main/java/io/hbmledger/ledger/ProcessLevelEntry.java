package io.hbmledger.ledger;

import java.util.List;

/**
 * Memory that belongs to a process or profiling directory but cannot be assigned to one device
 * (report-v1 {@code process_level}); never added into a device's ledger.
 */
public record ProcessLevelEntry(String component, Long bytes, Confidence confidence, String scope,
                                List<Source> sources, String note) {

    public ProcessLevelEntry {
        sources = List.copyOf(sources);
    }
}

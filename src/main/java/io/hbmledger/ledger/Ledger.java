package io.hbmledger.ledger;

import java.util.List;
import java.util.Locale;

/**
 * The whole result of attribution: one ledger per device of the deployment, process-level data
 * kept apart, and the run's status.
 */
public record Ledger(Status status, List<String> incompleteReasons, List<DeviceLedger> devices,
                     List<ProcessLevelEntry> processLevel, List<String> notes) {

    public Ledger {
        incompleteReasons = List.copyOf(incompleteReasons);
        devices = List.copyOf(devices);
        processLevel = List.copyOf(processLevel);
        notes = List.copyOf(notes);
    }

    public enum Status {
        COMPLETE, INCOMPLETE, FAILED;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

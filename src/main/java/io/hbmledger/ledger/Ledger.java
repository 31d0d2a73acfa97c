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

    /**
     * This ledger with the collection's own status and reasons (run.json) put first: a run the
     * collector marked failed or incomplete stays so whatever the evidence shows.
     */
    public Ledger withCollection(String collectionStatus, List<String> collectionReasons) {
        List<String> reasons = new java.util.ArrayList<>();
        for (String r : collectionReasons) {
            reasons.add("collection: " + r);
        }
        reasons.addAll(incompleteReasons);
        Status s = status;
        if ("failed".equals(collectionStatus)) {
            s = Status.FAILED;
        } else if (s == Status.COMPLETE && (!collectionReasons.isEmpty() || "incomplete".equals(collectionStatus))) {
            s = Status.INCOMPLETE;
        }
        return new Ledger(s, reasons, devices, processLevel, notes);
    }

    /** This ledger with notes from loading (files skipped, moments assumed) put first. */
    public Ledger withNotes(List<String> first) {
        if (first.isEmpty()) {
            return this;
        }
        List<String> all = new java.util.ArrayList<>(first);
        all.addAll(notes);
        return new Ledger(status, incompleteReasons, devices, processLevel, all);
    }

    public enum Status {
        COMPLETE, INCOMPLETE, FAILED;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

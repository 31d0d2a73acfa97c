package io.hbmledger.ledger;

import java.util.ArrayList;
import java.util.List;

/** The run's result while run rules fill in status, reasons and process-level data. */
public final class RunDraft {

    final List<DeviceLedger> devices;
    Ledger.Status status = Ledger.Status.COMPLETE;
    final List<String> reasons = new ArrayList<>();
    final List<ProcessLevelEntry> processLevel = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    RunDraft(List<DeviceLedger> devices) {
        this.devices = List.copyOf(devices);
    }

    public List<DeviceLedger> devices() {
        return devices;
    }

    /** Marks the run incomplete (unless it already failed) and records why. */
    public void incomplete(String reason) {
        if (status == Ledger.Status.COMPLETE) {
            status = Ledger.Status.INCOMPLETE;
        }
        if (!reasons.contains(reason)) {
            reasons.add(reason);
        }
    }

    public void failed(String reason) {
        status = Ledger.Status.FAILED;
        if (!reasons.contains(reason)) {
            reasons.add(reason);
        }
    }

    public void processLevel(ProcessLevelEntry e) {
        processLevel.add(e);
    }

    public void note(String n) {
        notes.add(n);
    }

    Ledger build() {
        return new Ledger(status, reasons, devices, processLevel, notes);
    }
}

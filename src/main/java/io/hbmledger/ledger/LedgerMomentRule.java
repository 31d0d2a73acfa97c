package io.hbmledger.ledger;

/**
 * Which instant the device's ledger explains: {@code oom} when the log holds an out-of-memory
 * failure of this device (the state that filled it), else {@code ready} (server up, before any
 * request). msprof peaks will add a {@code peak} ledger.
 */
final class LedgerMomentRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        d.moment = OomDevices.of(ev, d.logicalDevice).isEmpty() ? "ready" : "oom";
    }
}

package io.hbmledger.ledger;

/**
 * Which instant the device's ledger explains: {@code oom} when the run's log holds an
 * out-of-memory failure (every device is explained at the failure, the failed one with
 * PyTorch's own figures), else {@code ready} (server up, before any request). msprof peaks will
 * add a {@code peak} ledger.
 */
final class LedgerMomentRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        d.moment = ev.where(OomDevices::isOom).isEmpty() ? "ready" : "oom";
    }
}

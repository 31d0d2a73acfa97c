package io.hbmledger.ledger.vllm;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.ProcessLevelEntry;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.List;

/**
 * Out-of-memory figures that no device ledger took (the message names no device, or one beyond
 * the deployment, and the run does not say which device the log is of) go to process_level: they
 * belong to the failed worker process, and must not vanish from the report.
 */
public final class UntiedOomRule implements RunRule {

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        List<Integer> devices = ev.layout().devices();
        for (TaggedObservation t : ev.where(OomDevices::isOom)) {
            Integer d = OomDevices.deviceOf(t, ev.layout());
            if (d != null && devices.contains(d)) {
                continue;
            }
            String where = t.o().context().device() == null ? "the message names no device"
                    : "the message names " + t.o().context().device() + " (a process-local index), beyond the deployment's "
                            + devices.size() + " device(s)";
            run.processLevel(new ProcessLevelEntry(t.quantity().contractName(), t.o().bytes(), Confidence.REPORTED,
                    t.o().context().process() == null ? t.file() : t.o().context().process(), List.of(t.source()),
                    "out-of-memory figure not tied to a device: " + where
                            + "; name the device with --file-device LOG=ID or evidence[].device"));
        }
    }
}

package io.hbmledger.ledger.owner;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;

/** A hand-made run for rule tests: vLLM log lines and config.json figures, one device per rank. */
final class HandMadeRun {

    static final long GIB = 1L << 30;
    static final String LOG = "serve.log";

    private final List<TaggedObservation> obs = new ArrayList<>();
    private final List<EvidenceSet.FileInfo> files = new ArrayList<>();
    private int tp = 1;

    HandMadeRun tp(int n) {
        tp = n;
        return this;
    }

    HandMadeRun withLog() {
        files.add(new EvidenceSet.FileInfo(LOG, EvidenceFormat.VLLM_LOG, Moment.STARTUP));
        return this;
    }

    /** A vLLM log line of rank 0 holding bytes. */
    HandMadeRun logBytes(Quantity q, long bytes, int line, String text) {
        obs.add(new TaggedObservation(Observation.bytes(q, bytes, line, text), LOG, EvidenceFormat.VLLM_LOG,
                Moment.STARTUP, 0, null));
        return this;
    }

    /** A vLLM log line of the given rank holding bytes. */
    HandMadeRun rankBytes(int rank, Quantity q, long bytes, int line, String text) {
        obs.add(new TaggedObservation(Observation.bytes(q, bytes, line, text), LOG, EvidenceFormat.VLLM_LOG,
                Moment.STARTUP, rank, null));
        return this;
    }

    /** A vLLM log line of rank 0 holding a count. */
    HandMadeRun logValue(Quantity q, double value, int line, String text) {
        obs.add(new TaggedObservation(Observation.value(q, value, line, text), LOG, EvidenceFormat.VLLM_LOG,
                Moment.STARTUP, 0, null));
        return this;
    }

    /** A config.json figure in bytes (KV bytes per token). */
    HandMadeRun configBytes(Quantity q, long bytes, int line) {
        obs.add(new TaggedObservation(Observation.bytes(q, bytes, line, String.valueOf(bytes)), "config.json",
                EvidenceFormat.MODEL_CONFIG, null, null, null));
        return this;
    }

    EvidenceSet evidence() {
        List<Integer> devices = new ArrayList<>();
        for (int i = 0; i < tp; i++) {
            devices.add(i);
        }
        return new EvidenceSet(obs, files, Layout.of(tp, 1, devices, List.of(), null));
    }
}

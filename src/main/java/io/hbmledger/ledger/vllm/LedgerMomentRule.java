package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;

/**
 * Which instant the device's ledger explains: {@code oom} when the run's log holds an
 * out-of-memory failure (every device is explained at the failure, the failed one with
 * PyTorch's own figures); {@value #FAILED_START} when the server never became ready for another
 * reason (the run's collection says so, or vLLM found no memory left for the KV cache, which it
 * refuses to start with); else {@code ready} (server up, before any request).
 */
public final class LedgerMomentRule implements DeviceRule {

    /** The moment of a start that failed without an out-of-memory message. */
    public static final String FAILED_START = "failed_start";

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!ev.where(OomDevices::isOom).isEmpty()) {
            d.decideMoment("oom");
        } else if (ev.startFailure() != null || refusedKv(ev).isPresent() || refusedStart(ev).isPresent()) {
            d.decideMoment(FAILED_START);
        } else {
            d.decideMoment("ready");
        }
    }

    /** True for the moments that explain a failure: samples taken after it fit them, ready ones do not. */
    public static boolean failure(String moment) {
        return "oom".equals(moment) || FAILED_START.equals(moment);
    }

    /**
     * A negative "Available KV cache memory", or vllm-ascend's "Available memory: 0" (worker_v1.py
     * determine_available_memory prints max(total x utilization - peak, 0) and returns it): vLLM V1
     * then raises "No available memory for the cache blocks" (v1/core/kv_cache_utils.py
     * check_enough_kv_cache_memory: available_memory <= 0), so the server never became ready.
     */
    public static java.util.Optional<TaggedObservation> refusedKv(EvidenceSet ev) {
        return ev.where(t -> t.o().bytes() != null
                && (t.quantity() == Quantity.KV_CACHE_AVAILABLE && t.o().bytes() < 0
                        || t.quantity() == Quantity.AVAILABLE_MEMORY && t.o().bytes() <= 0))
                .stream().findFirst();
    }

    /**
     * A refusal or memory error the engine printed before it became ready (vLLM's free-memory
     * check at start, KV sizing, profiling or model loading: {@code memory_failure} with its
     * phase). An out-of-memory error with figures is the OOM moment instead.
     */
    public static java.util.Optional<TaggedObservation> refusedStart(EvidenceSet ev) {
        return ev.where(t -> t.quantity() == Quantity.MEMORY_FAILURE).stream().findFirst();
    }
}

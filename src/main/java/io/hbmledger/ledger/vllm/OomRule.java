package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.owner.AllocatorCacheRule;
import java.util.List;
import java.util.Optional;

/**
 * An out-of-memory failure: PyTorch's own account of the failed device (reported) — allocated
 * bytes as one entry, reserved minus allocated as the allocator's cache (inferred) — and a
 * failing check that says how short the allocation fell. The message's figures follow the
 * PyTorch/torch_npu OOM text: "Tried to allocate X (NPU n; T total capacity; A already
 * allocated; F free; R reserved in total by PyTorch)".
 *
 * <p>Owner of torch_allocated; refines (takes out of the sum) the vLLM lines that sit inside it.
 * The allocator cache is {@link AllocatorCacheRule}'s, with this message as its first candidate.
 */
public final class OomRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (!"oom".equals(d.moment())) {
            return;
        }
        List<TaggedObservation> lines = OomDevices.of(ev, d.logicalDevice());
        Optional<TaggedObservation> alloc = last(lines, Quantity.OOM_ALLOCATED);
        Optional<TaggedObservation> tried = last(lines, Quantity.OOM_TRIED);
        Optional<TaggedObservation> free = last(lines, Quantity.OOM_FREE);
        if (alloc.isPresent()) {
            TaggedObservation a = alloc.get();
            d.decide(new Entry(Component.TORCH_ALLOCATED, a.o().bytes(), Confidence.REPORTED, List.of(a.source()),
                    "PyTorch's allocated bytes when the allocation failed: weights, KV cache (if allocated yet)"
                            + " and live activations together; the log does not split them",
                    "oom", true, null));
            // Refines: figures vLLM printed earlier (weights, KV) sit inside the allocated bytes.
            for (String inside : List.of(Component.WEIGHTS, Component.KV_CACHE, Component.GRAPH_POOL,
                    Component.ACTIVATION_PEAK, Component.PROFILE_PEAK_REST)) {
                d.refine(inside, OomRule.class, "inside torch_allocated");
            }
        }
        if (tried.isPresent()) {
            long want = tried.get().o().bytes();
            String detail = "tried to allocate " + Units.gib(want);
            if (free.isPresent()) {
                long f = free.get().o().bytes();
                detail += " with " + Units.gib(f) + " free: short by " + Units.gib(want - f);
            }
            detail += " (" + tried.get().source().shortForm() + ")";
            d.check(new Check(Check.OOM, Check.Status.FAIL, detail));
        }
    }

    /**
     * PyTorch's allocated bytes of the failed device, in an out-of-memory ledger: the
     * torch_allocated line this rule decides, which holds weights, KV cache and activations, so
     * their owners put no unknown line beside it.
     */
    public static Optional<TaggedObservation> allocated(EvidenceSet ev, DeviceDraft d) {
        return "oom".equals(d.moment()) ? last(OomDevices.of(ev, d.logicalDevice()), Quantity.OOM_ALLOCATED)
                : Optional.empty();
    }

    /** The allocator's cache from the OOM message, reserved minus allocated (inferred): an {@link AllocatorCacheRule} candidate. */
    public static Optional<Entry> allocatorCache(EvidenceSet ev, DeviceDraft d) {
        if (!"oom".equals(d.moment())) {
            return Optional.empty();
        }
        List<TaggedObservation> lines = OomDevices.of(ev, d.logicalDevice());
        Optional<TaggedObservation> alloc = last(lines, Quantity.OOM_ALLOCATED);
        Optional<TaggedObservation> reserved = last(lines, Quantity.OOM_RESERVED);
        if (alloc.isEmpty() || reserved.isEmpty()) {
            return Optional.empty();
        }
        long a = alloc.get().o().bytes();
        long r = reserved.get().o().bytes();
        return Optional.of(new Entry(Component.ALLOCATOR_CACHE, r - a, Confidence.INFERRED,
                List.of(reserved.get().source(), alloc.get().source()),
                "reserved by PyTorch's caching allocator but not allocated",
                "oom", true, "reserved " + reserved.get().o().text() + " - allocated " + alloc.get().o().text()
                        + " = " + (r - a) + " B (" + Units.gib(r - a) + ")"));
    }

    private static Optional<TaggedObservation> last(List<TaggedObservation> lines, Quantity q) {
        TaggedObservation found = null;
        for (TaggedObservation t : lines) {
            if (t.quantity() == q) {
                found = t;
            }
        }
        return Optional.ofNullable(found);
    }
}

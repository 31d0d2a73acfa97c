package io.hbmledger.ledger.smi;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import java.util.List;
import java.util.Optional;

/**
 * Used memory from {@code npu-smi info -t usages}: the sample gives a capacity in MB (MiB, as
 * every npu-smi MB) and a usage rate in whole percent, so used = capacity x rate / 100, to within
 * half a percent of capacity (the rate is rounded). HBM is preferred; a chip without HBM (Atlas
 * 200I A2, 310P) gives its DDR memory.
 */
public record UsageRate(TaggedObservation capacity, TaggedObservation rate, String what) {

    static Optional<UsageRate> of(List<TaggedObservation> rows) {
        for (Pair q : PAIRS) {
            Optional<TaggedObservation> c = rows.stream().filter(t -> t.quantity() == q.capacity && t.o().bytes() != null).findFirst();
            Optional<TaggedObservation> r = rows.stream().filter(t -> t.quantity() == q.rate && t.o().value() != null).findFirst();
            if (c.isPresent() && r.isPresent()) {
                return Optional.of(new UsageRate(c.get(), r.get(), q.what));
            }
        }
        return Optional.empty();
    }

    private record Pair(Quantity capacity, Quantity rate, String what) {
    }

    /** HBM first: a chip without HBM gives its DDR memory. */
    private static final List<Pair> PAIRS = List.of(
            new Pair(Quantity.HBM_CAPACITY, Quantity.HBM_USAGE_RATE, "HBM"),
            new Pair(Quantity.MEMORY_CAPACITY, Quantity.MEMORY_USAGE_RATE, "DDR memory (this chip shows no HBM)"));

    long usedBytes() {
        return Math.round(capacity.o().bytes() * rate.o().value() / 100.0);
    }

    /** What used is and how close it is; the calculation itself is {@link #arithmetic()}. */
    String note() {
        long halfPercent = capacity.o().bytes() / 200;
        return what + " worked out from npu-smi info -t usages (capacity x usage rate); the rate is a whole"
                + " percent, so this is within " + Units.gib(halfPercent) + " (half a percent of capacity)";
    }

    /** Capacity as written (MB = MiB) x rate / 100, each with its line. */
    String arithmetic() {
        return "capacity " + capacity.o().text() + " MiB (line " + capacity.o().line() + ") x usage rate "
                + rate.o().text() + "% (line " + rate.o().line() + ") / 100 = " + usedBytes() + " B ("
                + Units.gib(usedBytes()) + ")";
    }
}

package io.hbmledger.ledger.vllm;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses, for one worker rank, the vLLM log line of a quantity that describes it.
 *
 * <p>A line tagged with the rank wins (the last one, as vLLM prints the final figure last). A
 * line without a rank serves every rank: for a one-rank deployment it is the rank's own figure
 * (reported); with several ranks it is applied to each (inferred). When untagged workers printed
 * different values, the largest is applied and the note lists them.
 */
public final class RankPick {

    public record Picked(TaggedObservation t, Confidence confidence, String note) {
    }

    private RankPick() {
    }

    public static Optional<Picked> pick(List<TaggedObservation> lines, int rank, Layout layout) {
        TaggedObservation own = null;
        for (TaggedObservation t : lines) {
            if (t.rank() != null && t.rank() == rank) {
                own = t;
            }
        }
        if (own != null) {
            return Optional.of(new Picked(own, Confidence.REPORTED, "rank " + rank + "'s own line"));
        }
        // Untagged lines: the last line per worker label.
        Map<String, TaggedObservation> byWorker = new LinkedHashMap<>();
        for (TaggedObservation t : lines) {
            if (t.rank() == null) {
                byWorker.put(t.file() + "|" + t.o().context().process(), t);
            }
        }
        if (byWorker.isEmpty()) {
            return Optional.empty();
        }
        List<TaggedObservation> last = new ArrayList<>(byWorker.values());
        TaggedObservation best = last.get(0);
        boolean same = true;
        for (TaggedObservation t : last) {
            if (!sameValue(t, best)) {
                same = false;
            }
            if (amount(t) > amount(best)) {
                best = t;
            }
        }
        if (layout.ranks() == 1) {
            return Optional.of(new Picked(best, Confidence.REPORTED, "the only rank"));
        }
        String who = best.o().context().process() == null ? "a line without a worker label" : "worker " + best.o().context().process();
        if (same && last.size() == 1) {
            return Optional.of(new Picked(best, Confidence.INFERRED,
                    "one figure from " + who + " serves all " + layout.ranks() + " ranks; applied to rank " + rank));
        }
        if (same) {
            // V0 worker processes carry a pid but no rank: each printed its own figure, all equal
            StringBuilder names = new StringBuilder();
            for (TaggedObservation t : last) {
                names.append(names.length() == 0 ? "" : ", ").append(t.o().context().process() == null ? "unlabelled" : t.o().context().process());
            }
            return Optional.of(new Picked(best, Confidence.INFERRED, last.size() + " workers without a rank label ("
                    + names + ") printed the same figure; the log does not say which rank each is, so it is applied to all "
                    + layout.ranks() + " ranks, here rank " + rank));
        }
        StringBuilder vals = new StringBuilder();
        for (TaggedObservation t : last) {
            vals.append(vals.length() == 0 ? "" : ", ").append(t.o().text());
        }
        return Optional.of(new Picked(best, Confidence.INFERRED,
                "workers without a rank label printed " + vals + "; the largest is applied to rank " + rank));
    }

    private static double amount(TaggedObservation t) {
        return t.o().bytes() != null ? t.o().bytes() : t.o().value();
    }

    private static boolean sameValue(TaggedObservation a, TaggedObservation b) {
        return amount(a) == amount(b);
    }
}

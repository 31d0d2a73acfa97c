package io.hbmledger.verdict;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One answer to a question the user asks (report-v1 {@code findings[]}): a sentence with its
 * figures, and what to change.
 *
 * @param kind what the finding is about (the set is open; a kind keeps its meaning)
 * @param severity error: the server failed or cannot serve; warn: it serves but something is
 *     wrong or at risk; info: an answer that helps (headroom, what fits)
 * @param devices the devices it concerns, as the ledger names them
 * @param instance the server it is about when the run holds several, else null
 * @param text one sentence with the figures in GiB
 * @param figures the numbers, each with confidence, arithmetic and sources
 * @param advice what to change, each a sentence
 */
public record Finding(Kind kind, Severity severity, List<String> devices, String instance, String text,
                      List<Figure> figures, List<String> advice) {

    public Finding {
        devices = List.copyOf(devices);
        figures = List.copyOf(figures);
        advice = List.copyOf(advice);
    }

    public Optional<Figure> figure(String name) {
        return figures.stream().filter(f -> f.name().equals(name)).findFirst();
    }

    public enum Severity {
        ERROR, WARN, INFO;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Finding kinds, named as report-v1 suggests. */
    public enum Kind {
        START_REFUSED, KV_NEGATIVE, KV_SMALL, OOM, OTHER_TENANT, OUTSIDE_BUDGET, OVER_SUBSCRIBED,
        RANK_MISMATCH, HEADROOM, WHAT_FITS, NODE_IMBALANCE, BELOW_BUDGET,
        /** vLLM's profiling check failed: free memory did not fall while it profiled. */
        PROFILING_DISTURBED,
        /**
         * A refused start beside a later sample of its device with less free memory: an instance
         * forced past the start check got only what was left.
         */
        LEFTOVER_START;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

package io.hbmledger.plan;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Source;
import java.util.List;

/**
 * One line of memory a plan counts besides the KV cache.
 *
 * @param component a ledger component name ({@code weights}, {@code activation_peak}, {@code non_torch}, ...)
 * @param bytes per device; null when unknown (never 0 for unknown)
 * @param confidence how sure: {@code measured}/{@code reported} only when taken unchanged from a run
 * @param inBudget true when vLLM counts it inside utilization x total before sizing the KV cache;
 *     false for memory taken after (the graph pool) or outside the framework
 * @param measured what was measured or assumed, and where (a run's line, a default's source)
 * @param scaled the scaling rule applied, or {@code unchanged}
 * @param arithmetic the calculation with its numbers
 * @param sources evidence lines behind the figure
 */
public record NonKvLine(String component, Long bytes, Confidence confidence, boolean inBudget, String measured,
                        String scaled, String arithmetic, List<Source> sources) {

    public NonKvLine {
        sources = List.copyOf(sources);
        if ((bytes == null) != (confidence == Confidence.UNKNOWN)) {
            throw new IllegalArgumentException(component + ": bytes must be null exactly when confidence is unknown");
        }
    }

    public boolean known() {
        return bytes != null;
    }
}

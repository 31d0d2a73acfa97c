package io.hbmledger.plan;

import io.hbmledger.verdict.Figure;
import io.hbmledger.weights.ParallelLayout;
import java.util.List;
import java.util.Optional;

/**
 * What fits on one device: the memory lines counted before the KV cache, the KV cache that is
 * left, and the settings that would fit. Every number is a {@link Figure} with its arithmetic.
 *
 * @param model the model as named
 * @param device the device model, or {@code --capacity}
 * @param layout TP / DP / PP / EP
 * @param devices devices in the deployment (tp x dp x pp); the figures are for the heaviest one
 * @param settings the settings planned
 * @param engine the engine family whose budget rules and defaults apply
 * @param calibratedBy the calibration run, or null for defaults
 * @param lines weights and the non-KV lines (in the budget or not)
 * @param figures the results, by name: total_seen, budget, kv_budget, kv_bytes_per_token, blocks, kv_tokens, ...
 * @param check the calibration run's own KV budget and blocks next to the plan's, when the plan
 *     is for the run's own settings; empty otherwise
 * @param notes caveats in sentences
 */
public record Plan(String model, String device, ParallelLayout layout, int devices, PlanSettings settings, String engine,
                   String calibratedBy, List<NonKvLine> lines, List<Figure> figures, List<Figure> check, List<String> notes) {

    public Plan {
        lines = List.copyOf(lines);
        figures = List.copyOf(figures);
        check = List.copyOf(check);
        notes = List.copyOf(notes);
    }

    public Optional<Figure> figure(String name) {
        return figures.stream().filter(f -> f.name().equals(name)).findFirst();
    }
}

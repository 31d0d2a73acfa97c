package io.hbmledger.plan;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.verdict.Figure;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The calibration run's own KV budget and block count beside the plan's, so a plan for the run's
 * own settings shows how close it comes (and a plan for other settings shows the starting point).
 */
final class Reproduction {

    private Reproduction() {
    }

    static List<Figure> check(Calibration cal, long planWeights, long planKv, long planBlocks) {
        List<Figure> out = new ArrayList<>();
        if (cal == null) {
            return out;
        }
        if (cal.weights() != null) {
            Figure run = cal.weights().named("run_weights");
            out.add(run);
            out.add(Figure.bytes("plan_minus_run_weights", planWeights - run.bytes(), Confidence.ESTIMATED,
                    planWeights + " B - " + run.bytes() + " B (goes into the KV budget with the opposite sign)", run.sources()));
        }
        if (cal.kvBudget() != null) {
            Figure run = cal.kvBudget().named("run_kv_budget");
            out.add(run);
            out.add(Figure.bytes("plan_minus_run_kv_budget", planKv - run.bytes(), Confidence.ESTIMATED,
                    planKv + " B - " + run.bytes() + " B", run.sources()));
        }
        Figure blocks = cal.blocks();
        if (blocks != null) {
            out.add(blocks.named("run_blocks"));
            out.add(Figure.value("plan_minus_run_blocks", planBlocks - blocks.value(), Confidence.ESTIMATED,
                    String.format(Locale.ROOT, "%d - %.0f", planBlocks, blocks.value()), blocks.sources()));
        }
        return out;
    }
}

package io.hbmledger.ledger;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Worker rank from a vLLM log line's worker label (the text in its leading parentheses).
 *
 * <p>Labels followed: V1 multiproc {@code Worker_TP1}, {@code Worker_DP1_TP0},
 * {@code Worker_PP0_TP1} (vllm/v1/executor/multiproc_executor.py names the process
 * {@code Worker_} plus its parallel ranks); older V1 {@code VllmWorker rank=1}; the V1 engine
 * core {@code EngineCore_0} / {@code EngineCore_DP1}, which runs the worker in-process when TP is
 * 1. V0 {@code VllmWorkerProcess pid=..} and Ray {@code RayWorkerWrapper} labels carry no rank.
 */
public final class RankLabels {

    private static final Pattern TP = Pattern.compile("Worker(?:_DP(\\d+))?(?:_PP\\d+)?_TP(\\d+)");
    private static final Pattern RANK = Pattern.compile("\\brank=(\\d+)");
    private static final Pattern ENGINE = Pattern.compile("EngineCore_(?:DP)?(\\d+)");

    private RankLabels() {
    }

    /** @return the global rank, or null when the label does not tell */
    public static Integer rankOf(String label, int tp) {
        if (label == null) {
            return null;
        }
        Matcher m = TP.matcher(label);
        if (m.find()) {
            int dp = m.group(1) == null ? 0 : Integer.parseInt(m.group(1));
            return dp * tp + Integer.parseInt(m.group(2));
        }
        m = RANK.matcher(label);
        if (m.find()) {
            return Integer.parseInt(m.group(1));
        }
        m = ENGINE.matcher(label);
        if (m.find() && tp == 1) {
            return Integer.parseInt(m.group(1));
        }
        return null;
    }
}

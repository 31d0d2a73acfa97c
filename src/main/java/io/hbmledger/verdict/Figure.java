package io.hbmledger.verdict;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Source;
import java.util.ArrayList;
import java.util.List;

/**
 * One number of a finding (report-v1 {@code findings[].figures[]}): a byte amount or a plain
 * value (a utilization, a token count), with its confidence, its arithmetic when it was worked
 * out, and the evidence lines behind it.
 *
 * @param name what the number is, e.g. {@code requested}, {@code free_at_start}
 * @param bytes the amount in bytes; null for a plain value or when unknown (never 0 for unknown)
 * @param value a plain number (ratio, count); null for a byte amount or when unknown
 * @param confidence how sure the number is; {@code UNKNOWN} exactly when both are null
 * @param arithmetic the calculation with its inputs, null for a number read as written
 * @param sources the evidence lines, in the order the arithmetic names them
 */
public record Figure(String name, Long bytes, Double value, Confidence confidence, String arithmetic,
                     List<Source> sources) {

    public Figure {
        sources = List.copyOf(sources);
        if ((bytes == null && value == null) != (confidence == Confidence.UNKNOWN)) {
            throw new IllegalArgumentException(name + ": a figure is unknown exactly when it has no number");
        }
    }

    public static Figure bytes(String name, long bytes, Confidence c, String arithmetic, List<Source> sources) {
        return new Figure(name, bytes, null, c, arithmetic, sources);
    }

    public static Figure value(String name, double value, Confidence c, String arithmetic, List<Source> sources) {
        return new Figure(name, null, value, c, arithmetic, sources);
    }

    public static Figure unknown(String name, String why) {
        return new Figure(name, null, null, Confidence.UNKNOWN, why, List.of());
    }

    public boolean known() {
        return confidence != Confidence.UNKNOWN;
    }

    /** This figure under another name (the same number seen from another finding). */
    public Figure named(String other) {
        return new Figure(other, bytes, value, confidence, arithmetic, sources);
    }

    /**
     * The confidence of a number worked out from others. Figures read from one line and added
     * up or subtracted keep that line's label (vLLM's own "27.18/60.96 GiB" gives a reported
     * difference); numbers from several lines or of several kinds are {@code inferred}, and an
     * estimated or inferred input makes the result no surer than itself.
     */
    static Confidence derived(Figure... inputs) {
        Confidence weakest = Confidence.MEASURED;
        boolean sameKind = true;
        for (Figure f : inputs) {
            sameKind &= f.confidence() == inputs[0].confidence();
            if (f.confidence().ordinal() > weakest.ordinal()) {
                weakest = f.confidence();
            }
        }
        if (weakest.ordinal() >= Confidence.INFERRED.ordinal()) {
            return weakest;
        }
        boolean oneLine = sourcesOf(inputs).stream().map(s -> s.file() + ":" + s.line()).distinct().count() <= 1;
        return sameKind && oneLine ? weakest : Confidence.INFERRED;
    }

    static List<Source> sourcesOf(Figure... inputs) {
        List<Source> all = new ArrayList<>();
        for (Figure f : inputs) {
            for (Source s : f.sources()) {
                if (!all.contains(s)) {
                    all.add(s);
                }
            }
        }
        return all;
    }
}

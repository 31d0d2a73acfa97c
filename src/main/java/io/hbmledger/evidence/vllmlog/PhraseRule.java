package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Quantity;
import java.util.regex.Pattern;

/**
 * One phrasing of one contract quantity: a pattern whose group {@code v} holds the value as
 * written (and, for the concurrency line, group {@code t} the tokens per request).
 *
 * @param anchor lower-case text every match contains; the pattern only runs on messages that
 *     contain it, which keeps long serving logs (mostly request lines) fast
 * @param quantity contract quantity name
 * @param pattern the phrase; group {@code v} may also catch a token that is not a number, so
 *     that a phrase whose number cannot be read gives a warning instead of silence
 * @param kind how to turn the value into an observation
 * @param scope where the phrase counts
 * @param firstOnly take only the first match in a message
 */
record PhraseRule(String anchor, Quantity quantity, Pattern pattern, Kind kind, Scope scope, boolean firstOnly) {

    enum Kind {
        /** A memory amount with its unit; vLLM always writes one here, so none is a fault. */
        AMOUNT,
        /** A memory amount with a unit, or a byte count without one (debug key=value forms). */
        AMOUNT_OR_BYTES,
        /** A byte count printed without unit, possibly with a fraction. */
        RAW_BYTES,
        /** A count, ratio or duration. */
        VALUE
    }

    enum Scope {
        /** Anywhere. */
        ANY,
        /** Only inside the multi-line "Memory profiling results:" table. */
        PROFILING_TABLE,
        /** Only on the one-line "Memory profiling results: duration=..., ..." form. */
        PROFILING_PAIRS,
        /** Only on an out-of-memory message ("Tried to allocate ..."). */
        OOM
    }

    /** A memory amount right after the phrase; anything else there is caught for a warning. */
    static final String AMOUNT = "(?<v>[-+]?[0-9][0-9.,]*+\\s*+(?:GiB|Gib|GB|MiB|MB|KiB|KB|bytes|B)?+(?![A-Za-z])|\\S*)";
    /** A memory amount with its unit, before a phrase ("5.96 GiB free"). */
    static final String AMOUNT_STRICT = "(?<v>[-+]?\\d[\\d.,]*\\s*(?:GiB|GB|MiB|MB|KiB|KB|bytes|B))(?![A-Za-z])";
    /** A number right after the phrase; anything else there is caught for a warning. */
    static final String NUMBER = "(?<v>[-+]?[0-9][0-9.,]*+|\\S*)";
    /** A number, only when one is really there. */
    static final String NUMBER_STRICT = "(?<v>[-+]?\\d[\\d,]*(?:\\.\\d+)?)";

    static PhraseRule any(String anchor, Quantity quantity, String regex, Kind kind) {
        return new PhraseRule(anchor, quantity, Pattern.compile(regex), kind, Scope.ANY, false);
    }

    static PhraseRule scoped(String anchor, Quantity quantity, String regex, Kind kind, Scope scope) {
        return new PhraseRule(anchor, quantity, Pattern.compile(regex), kind, scope, false);
    }

    static PhraseRule first(String anchor, Quantity quantity, String regex, Kind kind) {
        return new PhraseRule(anchor, quantity, Pattern.compile(regex), kind, Scope.ANY, true);
    }
}

package io.hbmledger.evidence.vllmlog;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * vLLM's KV refusals are one log line each: V1's v1/core/kv_cache_utils.py "To serve at least
 * one request with the model's max seq len (N), (X GiB KV cache is needed, which is larger than
 * the available KV cache memory (Y GiB). Based on the available memory, the estimated maximum
 * model length is M. Try increasing ..." and V0's "The model's max seq len (N) is larger than
 * the maximum number of tokens that can be stored in KV cache (M). Try increasing ...". Pastes
 * wrap them (a terminal's width, an editor, a reader breaking the sentence for the issue), and
 * a figure then lands on the next line ("memory\n(6.91 GiB)"), or a word is cut ("KV cach\ne is
 * needed"). This keeps such a refusal open from its first line to the line that ends it (at most
 * {@link #MAX_LINES}) and gives the whole sentence back to be read again. vLLM's failed profiling
 * check ("Error in memory profiling. Initial free memory X GiB, current free memory Y GiB. This
 * happens when ...") is wrapped alike (vllm #56830: the line broken after "X GiB,"). Stateful per file.
 */
final class WrappedRefusal {

    private static final Pattern START = Pattern.compile(
            "(?i)To serve at least(?: one(?: request(?: with(?: the(?: models?'?s?(?: max seq len)?)?)?)?)?)?\\s*$"
                    + "|To serve at least one request with the models?'?s? max seq len|max seq len\\s*\\(\\s*\\d+\\s*\\)\\s*is larger than"
                    + "|Error in memory profiling\\b");
    /** What ends the sentence: the advice, the estimate, V0's token count, or the profiling check's second figure. */
    private static final Pattern END = Pattern.compile(
            "(?i)Try increasing|estimated maximum model length is\\s+\\d|stored in KV cache\\s*\\(\\s*\\d+\\s*\\)"
                    + "|current free memory\\s+[-+]?\\d[\\d,]*(?:\\.\\d+)?(?:\\s*GiB)?\\s*\\.");
    private static final int MAX_LINES = 6;

    private StringBuilder joined;
    private StringBuilder unspaced;
    private LogSegment first;
    private final java.util.List<Integer> lineNos = new java.util.ArrayList<>();
    private final java.util.List<String> messages = new java.util.ArrayList<>();
    private int lines;
    private int firstObservation;

    /** Whether a refusal is open: this line may go on with it. */
    boolean open() {
        return joined != null;
    }

    /** Index into the file's observations where the open refusal's own began. */
    int firstObservation() {
        return firstObservation;
    }

    /**
     * Opens a refusal that starts in this segment and does not end in it.
     *
     * @param lineNo the line's number
     * @param observationsSoFar the file's observation count before this line's
     */
    void start(LogSegment seg, int lineNo, int observationsSoFar) {
        String msg = seg.message();
        if (!START.matcher(msg).find() || END.matcher(msg).find()) {
            return;
        }
        joined = new StringBuilder(msg.stripTrailing());
        unspaced = new StringBuilder(msg.stripTrailing());
        first = seg;
        lines = 1;
        lineNos.clear();
        messages.clear();
        lineNos.add(lineNo);
        messages.add(msg);
        firstObservation = observationsSoFar;
    }

    /**
     * Adds the next line's message; when the sentence ends here (or cannot go on: a blank line,
     * a new log record, too many lines), the refusal closes and the whole sentence comes back,
     * in the first line's segment, joined with a space or, where that cuts "KV cache is needed"
     * and no space mends it, without one.
     *
     * @param seg the line's first segment, or null for a blank line
     * @param lineNo the line's number
     */
    Optional<LogSegment> next(LogSegment seg, int lineNo) {
        if (seg == null || seg.tabular() || START.matcher(seg.message()).find()) {
            joined = null;
            return Optional.empty();
        }
        String msg = seg.message().strip();
        lineNos.add(lineNo);
        messages.add(msg);
        joined.append(' ').append(msg);
        unspaced.append(msg);
        lines++;
        // the end phrase may itself be wrapped ("the estimated maximum model" / "length is 12608")
        if (!END.matcher(joined).find() && !END.matcher(unspaced).find() && lines < MAX_LINES) {
            return Optional.empty();
        }
        String spaced = joined.toString();
        boolean cut = !spaced.toLowerCase(Locale.ROOT).contains("kv cache is needed")
                && unspaced.toString().toLowerCase(Locale.ROOT).contains("kv cache is needed");
        LogSegment whole = new LogSegment(first.process(), first.pid(), first.dpRank(), cut ? unspaced.toString() : spaced,
                first.tabular());
        joined = null;
        return Optional.of(whole);
    }

    /** The line of the last refusal that holds this text as written, else its first line. */
    int lineOf(String quote) {
        for (int i = 0; i < messages.size(); i++) {
            if (quote != null && messages.get(i).contains(quote)) {
                return lineNos.get(i);
            }
        }
        return lineNos.get(0);
    }
}

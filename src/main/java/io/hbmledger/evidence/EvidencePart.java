package io.hbmledger.evidence;

import java.util.List;

/**
 * A line range of a pasted file (an issue's markdown, a terminal paste) and what it was read
 * as: a reader's format with that reader's observations and warnings, or
 * {@link EvidenceFormat#UNKNOWN} for prose and for output that no reader knows (skipped).
 * Observations cite lines of the pasted file itself.
 *
 * @param firstLine 1-based first line of the range
 * @param lastLine 1-based last line of the range (inclusive)
 * @param format the reader's format, {@link EvidenceFormat#UNKNOWN} when the range was skipped
 * @param label how the range appeared: {@code "```bash block"}, {@code "lines in prose"},
 *     {@value #PROSE}
 * @param observations what the reader took from the range
 * @param warnings the reader's warnings for the range
 * @param idle for a device table, what the prose right above it (or right below it, referring
 *     back: "the above is before starting vLLM") says of an idle, not yet started server; null
 *     when it says nothing of the kind
 * @param started for a device table, what that prose says of a server already started; null
 *     when it says nothing of the kind (at most one of idle and started is set)
 */
public record EvidencePart(int firstLine, int lastLine, EvidenceFormat format, String label,
                           List<Observation> observations, List<String> warnings, StatedIdle idle,
                           StatedStart started) {

    /** The label of prose, skipped because it is not machine output. */
    public static final String PROSE = "prose";

    public EvidencePart {
        observations = List.copyOf(observations);
        warnings = List.copyOf(warnings);
    }

    /** A range with nothing said of its moment. */
    public EvidencePart(int firstLine, int lastLine, EvidenceFormat format, String label,
                        List<Observation> observations, List<String> warnings) {
        this(firstLine, lastLine, format, label, observations, warnings, null, null);
    }

    /** The same range, with what the prose around it says of the server: idle, started, or neither (both null). */
    public EvidencePart withStated(StatedIdle idleSaid, StatedStart startedSaid) {
        return new EvidencePart(firstLine, lastLine, format, label, observations, warnings, idleSaid, startedSaid);
    }

    /** True when a reader read the range. */
    public boolean read() {
        return format != EvidenceFormat.UNKNOWN;
    }

    /** True for prose, as opposed to output that no reader knew. */
    public boolean prose() {
        return PROSE.equals(label);
    }

    /** What the range was read as, for output: the format's contract name, {@code prose} or {@code unrecognised}. */
    public String shownFormat() {
        return read() ? format.contractName() : prose() ? PROSE : "unrecognised";
    }

    /** {@code lines 4-16}, or {@code line 4} for one line. */
    public String lines() {
        return firstLine == lastLine ? "line " + firstLine : "lines " + firstLine + "-" + lastLine;
    }
}

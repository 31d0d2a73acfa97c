package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.EvidencePart;
import java.util.List;

/**
 * Device tables of one text that its prose tells apart: one said to show idle devices ("Before
 * starting vLLM:") and another said to be taken after the start ("After starting vLLM:"), in one
 * fenced block or in a text without a fence. Read as one, the npu-smi reader would take both as
 * samples of one capture at one moment; read apart, each gets its own. Also what the prose right
 * above or below one table says of it ({@link #withStated}). Pure: lines in, answers out.
 */
final class TablesToldApart {

    private TablesToldApart() {
    }

    /**
     * True when, among the npu-smi / nvidia-smi ranges of {@code ranges} (in line order, the rest
     * of lines {@code from..} being prose), the prose says of one that it shows idle devices and of
     * another that it was taken after the start.
     */
    static boolean toldApart(List<String> lines, int from, List<PasteSegment> ranges) {
        boolean idle = false;
        boolean started = false;
        for (PasteSegment r : ranges) {
            if (r.kind() == PasteLine.SMI) {
                IdlePhrases.Said said = above(lines, from, ranges, r);
                idle |= said.idle() != null;
                started |= said.started() != null;
            }
        }
        return idle && started;
    }

    /**
     * What the prose right above {@code table} says of it: the lines between the output range
     * before it (or line {@code from}) and its first line, the phrase nearest the table first.
     */
    static IdlePhrases.Said above(List<String> lines, int from, List<PasteSegment> ranges, PasteSegment table) {
        int first = from;
        for (PasteSegment r : ranges) {
            if (r.first() >= table.first()) {
                break;
            }
            if (r.kind() != PasteLine.PROSE) {
                first = r.last() + 1;
            }
        }
        return first > table.first() - 1 ? IdlePhrases.Said.NOTHING : IdlePhrases.above(lines, first, table.first() - 1);
    }

    /**
     * A device table with what the prose says of its moment: the prose right above it, else the
     * first line of the prose right below it when that line refers back to it ("The above is
     * before starting vLLM.").
     */
    static EvidencePart withStated(EvidencePart table, List<String> lines, PasteSegment above, PasteSegment below) {
        IdlePhrases.Said said = above == null ? IdlePhrases.Said.NOTHING : IdlePhrases.above(lines, above.first(), above.last());
        if (!said.any() && below != null) {
            said = IdlePhrases.below(lines, below.first());
        }
        return table.withStated(said.idle(), said.started());
    }

    /**
     * The parts with a bare "before:" label dropped ({@link io.hbmledger.evidence.StatedIdle#bare()})
     * unless some table of the paste is said to be taken after the start: before what, the label
     * alone does not say.
     */
    static List<EvidencePart> bareBeforeOnlyBesideStarted(List<EvidencePart> parts) {
        if (parts.stream().anyMatch(p -> p.started() != null)) {
            return parts;
        }
        return parts.stream().map(p -> p.idle() != null && p.idle().bare() ? p.withStated(null, null) : p).toList();
    }
}

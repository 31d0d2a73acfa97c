package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.EvidencePart;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cuts a pasted text into line ranges: the content of each fenced block, runs of machine output
 * in the prose (lines that {@link PasteLine} finds to be tool output or log lines, with the blank
 * lines and indented continuation lines between them), and prose. A run changes range where it
 * changes from npu-smi / nvidia-smi output to log lines or back, so that a table and the log
 * pasted under it go to their own readers. Pure: lines in, ranges out.
 */
final class PasteSegmenter {

    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(```+|~~~+)\\s*([\\w+.-]*)");

    private PasteSegmenter() {
    }

    /** Ranges in file order, covering every non-blank line once. Index i of {@code lines} is line i+1. */
    static List<PasteSegment> split(List<String> lines) {
        List<PasteSegment> out = new ArrayList<>();
        int n = lines.size();
        int i = 0;
        while (i < n) {
            String raw = lines.get(i);
            PasteLine kind = PasteLine.of(raw);
            if (kind == PasteLine.FENCE) {
                i = fence(lines, i, out);
            } else if (kind == PasteLine.BLANK) {
                i++;
            } else if (kind == PasteLine.PROSE) {
                int end = i;
                while (end + 1 < n && PasteLine.of(lines.get(end + 1)) == PasteLine.PROSE) {
                    end++;
                }
                out.add(new PasteSegment(i + 1, end + 1, PasteLine.PROSE, EvidencePart.PROSE));
                i = end + 1;
            } else {
                i = run(lines, i, n, kind, "lines in prose", out);
            }
        }
        return out;
    }

    /** The machine lines inside a fenced block that no reader took whole (a shell script with a command in it). */
    static List<PasteSegment> runsWithin(List<String> lines, PasteSegment fence) {
        List<PasteSegment> out = new ArrayList<>();
        int i = fence.first() - 1;
        int end = fence.last();
        while (i < end) {
            PasteLine kind = PasteLine.of(lines.get(i));
            if (kind == PasteLine.SMI || kind == PasteLine.LOG) {
                i = run(lines, i, end, kind, "lines in " + fence.label(), out);
            } else {
                i++;
            }
        }
        return out;
    }

    /** A run of one family from line index {@code i}; returns the index after it. */
    private static int run(List<String> lines, int i, int limit, PasteLine family, String label, List<PasteSegment> out) {
        int last = i;
        int j = i + 1;
        while (j < limit) {
            String raw = lines.get(j);
            PasteLine k = PasteLine.of(raw);
            if (k == family || k == PasteLine.PROSE && PasteLine.continues(raw) && family == PasteLine.LOG) {
                last = j;
                j++;
            } else if (k == PasteLine.BLANK) {
                j++; // kept only when output of the same family follows
            } else {
                break;
            }
        }
        out.add(new PasteSegment(i + 1, last + 1, family, label));
        return last + 1;
    }

    /** A fenced block from its opening line {@code i}; an unclosed fence runs to the end. */
    private static int fence(List<String> lines, int i, List<PasteSegment> out) {
        Matcher open = FENCE.matcher(PasteLine.unquoted(lines.get(i)));
        open.find();
        String marker = open.group(1);
        String lang = open.group(2);
        int j = i + 1;
        while (j < lines.size() && !PasteLine.unquoted(lines.get(j)).strip().startsWith(marker)) {
            j++;
        }
        if (j > i + 1) {
            out.add(new PasteSegment(i + 2, j, PasteLine.FENCE, marker.substring(0, 3) + lang + " block"));
        }
        return j + 1;
    }
}

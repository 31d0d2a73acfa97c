package io.hbmledger.evidence.paste;

/**
 * A line range of a pasted text and what it looked like.
 *
 * @param first 1-based first line
 * @param last 1-based last line (inclusive)
 * @param kind {@link PasteLine#SMI} or {@link PasteLine#LOG} for machine output outside fences,
 *     {@link PasteLine#FENCE} for the content of a fenced block, {@link PasteLine#PROSE} for the rest
 * @param label how it appeared, for the report ({@code "```bash block"}, {@code "lines in prose"}, {@code "prose"})
 */
record PasteSegment(int first, int last, PasteLine kind, String label) {
}

package io.hbmledger.evidence.nvidiasmi;

import io.hbmledger.evidence.smitable.SmiParse;

/** The two pure nvidia-smi parsers behind one name, for callers that hold text of either kind. */
public final class NvidiaSmiParsers {

    private NvidiaSmiParsers() {
    }

    /** {@link NvidiaSmiTableParser#parse(String)}: plain {@code nvidia-smi} tables. */
    public static SmiParse table(String text) {
        return NvidiaSmiTableParser.parse(text);
    }

    /** {@link NvidiaSmiCsvParser#parse(String)}: {@code --query-* --format=csv} output. */
    public static SmiParse csv(String text) {
        return NvidiaSmiCsvParser.parse(text);
    }
}

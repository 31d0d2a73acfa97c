package io.hbmledger.cli;

/** How {@code analyze} prints the ledger: the text views, report-v1 JSON, or the self-contained HTML page. */
public enum AnalyzeFormat {
    text,
    json,
    html
}

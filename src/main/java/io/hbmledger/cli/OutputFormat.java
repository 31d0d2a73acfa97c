package io.hbmledger.cli;

/** How a verb prints its result. */
public enum OutputFormat {
    text,
    json
}

package io.hbmledger.evidence;

/**
 * The prose above a pasted device table says it was taken while the devices were idle, before
 * the server started ("Before starting vLLM, npu-smi shows:", "空闲"): an idle baseline sample,
 * not one to compare with the server's budget. A bare "before:" says so only beside a table
 * said to be taken after the start ({@link #bare()}).
 *
 * @param line 1-based line of the phrase in the pasted file
 * @param phrase the phrase as written
 */
public record StatedIdle(int line, String phrase) {

    /**
     * True for a line that is only the label "before:" (之前): before the start only when another
     * table of the paste is said to be taken after it ("before: ... after starting vLLM: ..."); on
     * its own it may as well be before a fix or a setting changed.
     */
    public boolean bare() {
        return phrase.strip().matches("(?i)before|之前|以前");
    }
}

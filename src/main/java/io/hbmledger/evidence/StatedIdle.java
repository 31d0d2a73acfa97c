package io.hbmledger.evidence;

/**
 * The prose above a pasted device table says it was taken while the devices were idle, before
 * the server started ("Before starting vLLM, npu-smi shows:", "空闲"): an idle baseline sample,
 * not one to compare with the server's budget.
 *
 * @param line 1-based line of the phrase in the pasted file
 * @param phrase the phrase as written
 */
public record StatedIdle(int line, String phrase) {
}

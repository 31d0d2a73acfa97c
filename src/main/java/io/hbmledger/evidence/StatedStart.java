package io.hbmledger.evidence;

/**
 * The prose around a pasted device table says it was taken after the server started ("After
 * starting vLLM, npu-smi shows:", "启动后"): a sample of the running server, once it is ready. Said
 * only of a table when the paste also holds an idle one ({@link StatedIdle}), so that each gets
 * its own moment.
 *
 * @param line 1-based line of the phrase in the pasted file
 * @param phrase the phrase as written
 */
public record StatedStart(int line, String phrase) {
}

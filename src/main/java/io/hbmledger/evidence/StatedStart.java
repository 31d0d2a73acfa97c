package io.hbmledger.evidence;

/**
 * The prose around a pasted device table says it was taken after the server started ("After
 * starting vLLM, npu-smi shows:", "启动后"): a sample of the running server, once it is ready, whether
 * the paste holds it alone or beside an idle one ({@link StatedIdle}).
 *
 * @param line 1-based line of the phrase in the pasted file
 * @param phrase the phrase as written
 */
public record StatedStart(int line, String phrase) {
}

package io.hbmledger.collect;

import java.util.List;

/**
 * What the state directory remembers of one managed serving execution ({@code execution.json} in its
 * runtime directory). The command is stored with secrets masked.
 *
 * @param schema        always {@value #SCHEMA}
 * @param id            execution id, e.g. exec-20261129-204501-3fa2
 * @param host          "local" or user@host:port of the serving host
 * @param runtimeDir    absolute runtime directory on the serving host (log, msprof output, this record)
 * @param command       the full argument list as started (including any msprof wrapper), secrets masked
 * @param pid           pid of the group leader
 * @param pgid          process group id (the leader was started with setsid)
 * @param port          HTTP port of the OpenAI-compatible server
 * @param model         model path or name as given to the server
 * @param tp            tensor-parallel size
 * @param dp            data-parallel size
 * @param ep            expert parallel enabled
 * @param devices       logical device ids (ASCEND_RT_VISIBLE_DEVICES order)
 * @param log           server log file name, relative to the runtime directory
 * @param msprofOutput  msprof output directory relative to the runtime directory, or null without the wrapper
 * @param startedBy     "exec start" or the run id of the collection that started it
 * @param started       start time, ISO-8601 with offset
 * @param stopped       stop time, or null
 * @param state         starting, ready, stopped, failed
 * @param serverPids    pids seen in the group once ready
 * @param secretSalt    hex salt of {@code secretHashes}
 * @param secretHashes  salted SHA-256 of the secret values in the command, to mask them in logs later
 * @param leaderStart   start time of the group leader (clock ticks since boot), so that a later
 *                      process reusing the pid is never taken for this execution
 */
public record ExecutionRecord(
        String schema, String id, String host, String runtimeDir, List<String> command, long pid, long pgid,
        int port, String model, Integer tp, Integer dp, Boolean ep, List<Integer> devices, String log,
        String msprofOutput, String startedBy, String started, String stopped, String state,
        List<Long> serverPids, String secretSalt, List<String> secretHashes, String leaderStart) {

    public static final String SCHEMA = "hbm-ledger/execution/1";
    public static final String FILE = "execution.json";

    /** A redactor that masks the secrets of this execution's command wherever they appear. */
    public Redactor redactor() {
        Redactor r = Redactor.forArguments(command);
        r.addHashedSecrets(secretSalt, secretHashes);
        return r;
    }

    public ExecutionRecord withState(String newState, String stoppedAt) {
        return new ExecutionRecord(schema, id, host, runtimeDir, command, pid, pgid, port, model, tp, dp, ep,
                devices, log, msprofOutput, startedBy, started, stoppedAt, newState, serverPids, secretSalt, secretHashes, leaderStart);
    }

    public ExecutionRecord withServerPids(List<Long> pids) {
        return new ExecutionRecord(schema, id, host, runtimeDir, command, pid, pgid, port, model, tp, dp, ep,
                devices, log, msprofOutput, startedBy, started, stopped, state, pids, secretSalt, secretHashes, leaderStart);
    }
}

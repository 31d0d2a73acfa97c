package io.hbmledger.collect;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The machine the serving execution runs on: this one ({@link LocalHost}) or another one over SSH
 * ({@link io.hbmledger.collect.ssh.SshHost}). Every command is an argument list; nothing is passed
 * through a shell string built from user input.
 */
public interface Host extends AutoCloseable {

    /** A short name for records and messages: "local" or user@host:port. */
    String name();

    /** True when a program of that name is on the host's PATH. */
    boolean hasCommand(String program) throws IOException;

    /** Runs a command to completion, killing it after {@code timeout}. */
    CommandResult run(List<String> argv, Map<String, String> env, Duration timeout) throws IOException;

    /**
     * Starts {@code argv} in a new session and process group (setsid), stdin from /dev/null and stdout
     * and stderr appended to {@code logFile}, in {@code workDir}.
     *
     * @return the process group id (equal to the leader's pid)
     */
    long startGroup(List<String> argv, Map<String, String> env, String workDir, String logFile) throws IOException;

    /** The pids of the live (non-zombie) processes in process group {@code pgid}. */
    Set<Long> groupMembers(long pgid) throws IOException;

    /**
     * The start time of process {@code pid} in clock ticks since boot (field 22 of /proc/PID/stat),
     * or null when there is no such process: with the pid it tells a process from a later one that
     * reused its pid.
     */
    String startTime(long pid) throws IOException;

    /** Sends {@code signal} (INT, TERM, KILL) to every process of group {@code pgid}. */
    void signalGroup(long pgid, String signal) throws IOException;

    /**
     * Creates a directory and its parents; the directory itself is made private (mode 700): a runtime
     * directory holds the server's own, unmasked output (vLLM prints its --api-key in clear).
     */
    void mkdirs(String dir) throws IOException;

    /** Reads a small text file, or null when it does not exist. */
    String readText(String file) throws IOException;

    /** The regular files directly in {@code dir} whose names end with {@code suffix}, sorted; empty when none or no such directory. */
    List<String> listFiles(String dir, String suffix) throws IOException;

    /** The size of {@code file} in bytes. */
    long size(String file) throws IOException;

    /** The first {@code n} bytes of {@code file} (fewer when it is shorter). */
    byte[] head(String file, long n) throws IOException;

    /**
     * Copies the directory {@code dir} into {@code localTarget} (created), in one transfer, and
     * checks that every file arrived whole.
     *
     * @param stall the copy fails when no data arrives for this long (its size does not matter)
     */
    void fetchDirectory(String dir, Path localTarget, Duration stall) throws IOException;

    /**
     * Frees the host of runtime directory {@code dir} once its copy is verified and in the run.
     *
     * @return what was done, for the collector's log; empty when nothing was (this machine keeps
     *     runtime directories in the state directory, where {@code exec logs} reads them)
     */
    default java.util.Optional<String> discardCopied(String dir) throws IOException {
        return java.util.Optional.empty();
    }

    /**
     * Marks every command started on this host from now on (samplers, exports, copies, the server of
     * a standalone run, guards) as the work of collection {@code runId}, so that a later resume can
     * find what a collector that died left behind ({@link #endLeftovers}). No-op where the
     * collector's death already ends all its children (this machine: the process-group watchers).
     */
    default void label(String runId) {
    }

    /**
     * Ends what collection {@code runId} left running on this host when its collector died without
     * ending it (on another host: the connection's end never reached it, e.g. the network went away
     * with the collector). Every process group holding a process labelled {@code runId} is killed,
     * except process group {@code sparePgid} (the measured server: an attached one is never
     * stopped, a standalone one is stopped gently by the caller). Call only while holding the
     * devices' locks, so that no live collector of that run is at work.
     *
     * @param sparePgid a process group left alone, or -1 for none
     * @return one line per process ended (pid, group, command), empty when none was left
     */
    default List<String> endLeftovers(String runId, long sparePgid) throws IOException {
        return List.of();
    }

    /** Host and port on this machine that reach TCP port {@code port} on the serving host. */
    java.net.InetSocketAddress reach(int port) throws IOException;

    /** True when nothing listens on {@code port} on the serving host. */
    boolean portFree(int port) throws IOException;

    /**
     * Makes sure the group is stopped if this collector process dies without cleaning up (SIGKILL):
     * a small watcher outlives us only as long as the group does. No-op where unsupported.
     */
    void guardGroup(long pgid) throws IOException;

    @Override
    void close() throws IOException;
}

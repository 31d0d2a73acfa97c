package io.hbmledger.collect.nodes;

import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.Host;
import io.hbmledger.collect.LocalHost;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A SIMULATED node of a multi-node deployment on this machine: a {@link LocalHost} whose commands
 * run with the node's own simulator state ({@code HBM_SIM_HOME}), under the node's own name (so
 * that its device locks and execution records are its own). {@link #dropOut()} makes it
 * unreachable, as a node that lost power or network: every later call fails.
 */
final class SimNodeHost implements Host {

    private final String name;
    private final LocalHost local;
    private volatile boolean gone;

    SimNodeHost(String name, Map<String, String> env) {
        this.name = name;
        this.local = new LocalHost(env);
    }

    void dropOut() {
        gone = true;
    }

    /** The node answers again (network back), for resume. */
    void comeBack() {
        gone = false;
    }

    private LocalHost up() throws IOException {
        if (gone) {
            throw new IOException("node " + name + " does not answer (connection lost)");
        }
        return local;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean hasCommand(String program) throws IOException {
        return up().hasCommand(program);
    }

    @Override
    public CommandResult run(List<String> argv, Map<String, String> env, Duration timeout) throws IOException {
        return up().run(argv, env, timeout);
    }

    @Override
    public long startGroup(List<String> argv, Map<String, String> env, String workDir, String logFile) throws IOException {
        return up().startGroup(argv, env, workDir, logFile);
    }

    @Override
    public Set<Long> groupMembers(long pgid) throws IOException {
        return up().groupMembers(pgid);
    }

    @Override
    public String startTime(long pid) throws IOException {
        return up().startTime(pid);
    }

    @Override
    public void signalGroup(long pgid, String signal) throws IOException {
        up().signalGroup(pgid, signal);
    }

    @Override
    public void mkdirs(String dir) throws IOException {
        up().mkdirs(dir);
    }

    @Override
    public String readText(String file) throws IOException {
        return up().readText(file);
    }

    @Override
    public List<String> listFiles(String dir, String suffix) throws IOException {
        return up().listFiles(dir, suffix);
    }

    @Override
    public long size(String file) throws IOException {
        return up().size(file);
    }

    @Override
    public byte[] head(String file, long n) throws IOException {
        return up().head(file, n);
    }

    @Override
    public void fetchDirectory(String dir, Path localTarget, Duration timeout) throws IOException {
        up().fetchDirectory(dir, localTarget, timeout);
    }

    @Override
    public InetSocketAddress reach(int port) throws IOException {
        return up().reach(port);
    }

    @Override
    public boolean portFree(int port) throws IOException {
        return up().portFree(port);
    }

    @Override
    public void guardGroup(long pgid) throws IOException {
        up().guardGroup(pgid);
    }

    @Override
    public void close() {
        local.close();
    }
}

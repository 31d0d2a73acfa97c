package io.hbmledger.collect.ssh;

import com.jcraft.jsch.Channel;
import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.Session;
import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.Host;
import io.hbmledger.collect.ShellQuote;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Another machine over SSH (jsch). The host key must already be in known_hosts: there is no blind
 * accept. SSH carries command strings only, so every argument list is quoted with
 * {@link ShellQuote}; remote commands run under {@code timeout} so that a hung one is killed there.
 * HTTP to the server goes through a local port forward, so the server need not be reachable directly.
 */
public final class SshHost implements Host {

    // Stops the group when the SSH connection that holds this script's stdin goes away (the
    // collector died); at a normal end the group is already gone and the script exits quietly.
    static final String GUARD_SCRIPT = String.join("\n",
            "pg=$1",
            "alive() { kill -0 -\"$pg\" 2>/dev/null; }",
            "cat >/dev/null",
            "alive || exit 0",
            "kill -INT -\"$pg\" 2>/dev/null",
            "i=0; while [ $i -lt 30 ] && alive; do sleep 0.5; i=$((i+1)); done",
            "alive || exit 0",
            "kill -TERM -\"$pg\" 2>/dev/null",
            "i=0; while [ $i -lt 10 ] && alive; do sleep 0.5; i=$((i+1)); done",
            "alive && kill -KILL -\"$pg\" 2>/dev/null",
            "exit 0");

    // Every remote command runs in its own session (setsid -w waits and passes the exit status on)
    // under this wrapper. Its stdin is the SSH channel, never closed by us while the command runs: a
    // watcher reads it, and its EOF means the connection is gone (the collector died, even by SIGKILL),
    // so the watcher kills timeout's group (timeout makes one) and its own. At a normal end the wrapper
    // ignores TERM and sends it to its own group, so the watcher goes with the command.
    static final String RUN_SCRIPT = String.join("\n",
            "exec 3<&0",
            "\"$@\" 3<&- </dev/null & c=$!",
            "{ cat <&3 >/dev/null 2>&1; kill -KILL -\"$c\" 0 2>/dev/null; } >/dev/null 2>&1 &",
            "exec 3<&-",
            "wait \"$c\"; rc=$?",
            "trap '' TERM; kill -TERM 0 2>/dev/null",
            "exit $rc");

    /** The environment variable that labels every remote command with its collection's run id ({@link #label}). */
    public static final String LABEL = "HBM_LEDGER_COLLECTION";

    // Lists the live processes labelled $1 (the whole string, NUL-ended in /proc/PID/environ) that
    // are not in process group $2: pid, group and what runs, tab-separated; the wrappers of this
    // class are named by what they wrap. Other users' environ cannot be read: grep skips them.
    static final String LEFTOVERS_SCRIPT = String.join("\n",
            "tag=$1; spare=$2",
            "for p in $(grep -lszxF \"$LABEL_VAR=$tag\" /proc/[0-9]*/environ | cut -d/ -f3); do",
            "  set -- $(ps -o pgid=,stat= -p \"$p\" 2>/dev/null)",
            "  [ $# -ge 2 ] || continue",
            "  case $2 in Z*) continue;; esac",
            "  [ \"$1\" = \"$spare\" ] && continue",
            "  a=$(ps -o args= -p \"$p\" 2>/dev/null)",
            "  case $a in *hbm-ledger-run\\ *) a=\"wrapper of: ${a#*hbm-ledger-run }\";;"
                    + " *hbm-ledger-guard\\ *) a=\"guard of process group ${a##* }\";; esac",
            "  a=$(printf '%s' \"$a\" | cut -c1-300)",
            "  printf '%s\\t%s\\t%s\\n' \"$p\" \"$1\" \"$a\"",
            "done").replace("$LABEL_VAR", LABEL);

    private final Session session;
    private final String name;
    private final Map<String, String> env;
    private final Map<Integer, Integer> forwards = new HashMap<>();
    private final List<Channel> guards = new ArrayList<>();
    private final boolean keepRemote;
    private volatile String label;

    private SshHost(Session session, String name, Map<String, String> env, boolean keepRemote) {
        this.session = session;
        this.name = name;
        this.env = env;
        this.keepRemote = keepRemote;
    }

    /** As {@link #connect(String, Path, Path, Map, Duration, boolean)}, removing runtime directories once copied. */
    public static SshHost connect(String target, Path identity, Path knownHosts, Map<String, String> env, Duration timeout) {
        return connect(target, identity, knownHosts, env, timeout, false);
    }

    /**
     * Connects to {@code user@host[:port]} with a private key, checking the server's host key
     * against {@code knownHosts}.
     *
     * @param env environment given to every remote command (e.g. PATH with the CANN tools)
     * @param keepRemote keep runtime directories on the host after their copy (else removed once verified)
     * @throws CollectException when the host key is unknown or does not match, or login fails
     */
    public static SshHost connect(String target, Path identity, Path knownHosts, Map<String, String> env,
                                  Duration timeout, boolean keepRemote) {
        String user = System.getProperty("user.name");
        String hostPart = target;
        int at = target.lastIndexOf('@');
        if (at >= 0) {
            user = target.substring(0, at);
            hostPart = target.substring(at + 1);
        }
        int port = 22;
        int colon = hostPart.lastIndexOf(':');
        if (colon > 0 && hostPart.indexOf(':') == colon) {
            port = Integer.parseInt(hostPart.substring(colon + 1));
            hostPart = hostPart.substring(0, colon);
        }
        if (!Files.isReadable(knownHosts)) {
            throw new CollectException("known_hosts file " + knownHosts + " is missing; add the host's key first, e.g. "
                    + "'ssh-keyscan -p " + port + " " + hostPart + " >> " + knownHosts + "' after checking its fingerprint");
        }
        try {
            JSch jsch = new JSch();
            jsch.setKnownHosts(knownHosts.toString());
            if (identity != null) {
                jsch.addIdentity(identity.toString());
            }
            Session s = jsch.getSession(user, hostPart, port);
            s.setConfig("StrictHostKeyChecking", "yes");
            s.setConfig("PreferredAuthentications", "publickey");
            s.setServerAliveInterval(10_000);
            s.connect((int) timeout.toMillis());
            return new SshHost(s, user + "@" + hostPart + ":" + port, new LinkedHashMap<>(env), keepRemote);
        } catch (JSchException e) {
            String why = e.getMessage();
            if (why != null && (why.contains("reject HostKey") || why.contains("HostKey has been changed"))) {
                throw new CollectException("the host key of " + hostPart + ":" + port + " is not in " + knownHosts
                        + " (or differs): " + why + ". Check its fingerprint and add it; hbm-ledger never accepts unknown keys", e);
            }
            throw new CollectException("cannot log in to " + user + "@" + hostPart + ":" + port + ": " + why, e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    private String remote(List<String> argv, Map<String, String> extraEnv) {
        Map<String, String> all = new LinkedHashMap<>(env);
        String l = label;
        if (l != null) {
            all.put(LABEL, l);
        }
        all.putAll(extraEnv);
        return ShellQuote.command(all, argv);
    }

    /** @throws IOException when the host did not answer: a slow host is not one without the program */
    @Override
    public boolean hasCommand(String program) throws IOException {
        Duration wait = Duration.ofSeconds(60);
        CommandResult r = run(List.of("sh", "-c", "command -v \"$1\" >/dev/null", "sh", program), Map.of(), wait);
        if (r.timedOut()) {
            throw new IOException("ssh " + name + ": 'command -v " + program + "' did not answer within " + wait.toSeconds()
                    + " s; the host is slow or hung, so whether " + program + " is on its PATH is not known");
        }
        return r.ok();
    }

    @Override
    public CommandResult run(List<String> argv, Map<String, String> extraEnv, Duration timeout) throws IOException {
        List<String> timed = new ArrayList<>(List.of("setsid", "-w", "sh", "-c", RUN_SCRIPT, "hbm-ledger-run"));
        long secs = Math.max(1, (timeout.toMillis() + 999) / 1000);
        timed.add("timeout");
        timed.add("-k");
        timed.add("5");
        timed.add(Long.toString(secs));
        timed.addAll(argv);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        Integer code = exec(remote(timed, extraEnv), null, out, err, timeout.plusSeconds(15));
        long elapsed = System.nanoTime() - start;
        if (code == null) {
            return new CommandResult(-1, out.toByteArray(), err.toByteArray(), true);
        }
        boolean timedOut = (code == 124 || code == 137) && elapsed >= timeout.toNanos() - 50_000_000L;
        return new CommandResult(timedOut ? -1 : code, out.toByteArray(), err.toByteArray(), timedOut);
    }

    /** Runs one remote command string; null when it did not finish within {@code wait}. */
    private Integer exec(String command, InputStream stdin, OutputStream out, OutputStream err, Duration wait) throws IOException {
        ChannelExec ch = null;
        try {
            ch = (ChannelExec) session.openChannel("exec");
            ch.setCommand(command);
            ch.setInputStream(stdin);
            ch.setErrStream(err, true);
            InputStream in = ch.getInputStream();
            ch.connect(30_000);
            long deadline = System.nanoTime() + wait.toNanos();
            byte[] buf = new byte[65536];
            while (true) {
                while (in.available() > 0) {
                    int n = in.read(buf);
                    if (n < 0) {
                        break;
                    }
                    out.write(buf, 0, n);
                }
                if (ch.isClosed()) {
                    if (in.available() > 0) {
                        continue;
                    }
                    return ch.getExitStatus();
                }
                if (System.nanoTime() > deadline) {
                    return null;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        } catch (JSchException e) {
            throw new IOException("ssh " + name + ": " + e.getMessage(), e);
        } finally {
            if (ch != null) {
                ch.disconnect();
            }
        }
    }

    @Override
    public long startGroup(List<String> argv, Map<String, String> extraEnv, String workDir, String logFile) throws IOException {
        // A background job of a shell without job control starts with SIGINT ignored, and a server
        // that ignores SIGINT cannot be stopped gently. With job control (set -m) bash puts the job
        // in its own process group, signals left as they were, and $! is that group's id.
        // umask 077: the log and msprof output hold the server's unmasked output; only the user reads them
        String inner = "set -m; umask 077; " + remote(argv, extraEnv) + " >>" + ShellQuote.quote(logFile) + " 2>&1 </dev/null & echo $!";
        String cmd = "cd " + ShellQuote.quote(workDir) + " && bash -c " + ShellQuote.quote(inner);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Integer code = exec(cmd, null, out, err, Duration.ofSeconds(60));
        String pid = out.toString(StandardCharsets.UTF_8).strip();
        if (code == null || code != 0 || !pid.matches("\\d+")) {
            throw new CollectException("could not start the server on " + name + ": " + err.toString(StandardCharsets.UTF_8).strip());
        }
        return Long.parseLong(pid);
    }

    @Override
    public Set<Long> groupMembers(long pgid) throws IOException {
        CommandResult r = run(List.of("ps", "-e", "-o", "pid=,pgid=,stat="), Map.of(), Duration.ofSeconds(20));
        if (!r.ok()) {
            throw new IOException("ps on " + name + " failed: " + r.stderrText().strip());
        }
        Set<Long> pids = new TreeSet<>();
        for (String line : r.stdoutText().split("\\R")) {
            String[] f = line.strip().split("\\s+");
            if (f.length >= 3 && Long.parseLong(f[1]) == pgid && !f[2].startsWith("Z")) {
                pids.add(Long.parseLong(f[0]));
            }
        }
        return pids;
    }

    @Override
    public String startTime(long pid) throws IOException {
        CommandResult r = run(List.of("cat", "/proc/" + pid + "/stat"), Map.of(), Duration.ofSeconds(20));
        if (!r.ok()) {
            return null;
        }
        String stat = r.stdoutText();
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return f.length > 19 ? f[19] : null;
    }

    @Override
    public void signalGroup(long pgid, String signal) throws IOException {
        if (!List.of("INT", "TERM", "KILL").contains(signal)) {
            throw new IllegalArgumentException("signal " + signal + " is not one of INT, TERM, KILL");
        }
        run(List.of("sh", "-c", "kill -\"$1\" -\"$2\"", "sh", signal, Long.toString(pgid)), Map.of(), Duration.ofSeconds(20));
    }

    @Override
    public void mkdirs(String dir) throws IOException {
        CommandResult r = run(List.of("sh", "-c", "mkdir -p -- \"$1\" && chmod 700 -- \"$1\"", "sh", dir), Map.of(),
                Duration.ofSeconds(20));
        if (!r.ok()) {
            throw new IOException("mkdir " + dir + " on " + name + ": " + r.stderrText().strip());
        }
    }

    @Override
    public String readText(String file) throws IOException {
        CommandResult r = run(List.of("cat", "--", file), Map.of(), Duration.ofSeconds(30));
        return r.ok() ? r.stdoutText() : null;
    }

    @Override
    public List<String> listFiles(String dir, String suffix) throws IOException {
        CommandResult r = run(List.of("find", dir, "-maxdepth", "1", "-type", "f", "-name", "*" + suffix), Map.of(),
                Duration.ofSeconds(30));
        if (!r.ok()) {
            return List.of();
        }
        return r.stdoutText().lines().filter(l -> !l.isEmpty()).sorted().toList();
    }

    @Override
    public long size(String file) throws IOException {
        CommandResult r = run(List.of("stat", "-L", "-c", "%s", "--", file), Map.of(), Duration.ofSeconds(30));
        if (!r.ok() || !r.stdoutText().strip().matches("\\d+")) {
            throw new IOException("cannot stat " + file + " on " + name + ": " + r.stderrText().strip());
        }
        return Long.parseLong(r.stdoutText().strip());
    }

    @Override
    public byte[] head(String file, long n) throws IOException {
        CommandResult r = run(List.of("head", "-c", Long.toString(n), "--", file), Map.of(), Duration.ofSeconds(120));
        if (!r.ok()) {
            throw new IOException("cannot read " + file + " on " + name + ": " + r.stderrText().strip());
        }
        return r.stdout();
    }

    /**
     * One tar stream, written by jsch's session thread straight into the local tar's stdin (no
     * piped stream between: the old copy polled a 32 KB pipe and ran at ~40 KB/s). The copy fails
     * only when no byte arrives for {@code stall}, so a GB-sized export copies as long as it moves.
     * Then the copy is verified: every remote file is there locally with its size.
     */
    @Override
    public void fetchDirectory(String dir, Path localTarget, Duration stall) throws IOException {
        Files.createDirectories(localTarget);
        Process untar = new ProcessBuilder("tar", "-xf", "-", "-C", localTarget.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.PIPE).start();
        ProgressStream toTar = new ProgressStream(untar.getOutputStream());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ChannelExec ch = null;
        Integer code = null;
        try {
            ch = (ChannelExec) session.openChannel("exec");
            ch.setCommand(remote(List.of("tar", "-C", dir, "-cf", "-", "."), Map.of()));
            ch.setOutputStream(toTar, false);   // closed by jsch at EOF: the local tar then ends
            ch.setErrStream(err, true);
            ch.connect(30_000);
            while (!ch.isClosed()) {
                if (toTar.quietFor() > stall.toNanos()) {
                    break;
                }
                Thread.sleep(50);
            }
            code = ch.isClosed() ? ch.getExitStatus() : null;
        } catch (JSchException e) {
            throw new IOException("ssh " + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            if (ch != null) {
                ch.disconnect();
            }
            toTar.close();
        }
        try {
            if (!untar.waitFor(stall.toMillis(), TimeUnit.MILLISECONDS)) {
                untar.destroyForcibly();
                throw new IOException("local tar did not finish unpacking " + dir + " from " + name);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        String untarErr = new String(untar.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (code == null) {
            throw new IOException("copying " + dir + " from " + name + " stopped moving: no data for " + stall.toSeconds()
                    + " s after " + toTar.count() + " bytes");
        }
        if (code != 0 || untar.exitValue() != 0) {
            throw new IOException("copying " + dir + " from " + name + " failed: " + err.toString(StandardCharsets.UTF_8).strip()
                    + " " + untarErr);
        }
        verify(dir, localTarget);
    }

    /** Every regular file under {@code dir} on the host is under {@code local} with the same size. */
    private void verify(String dir, Path local) throws IOException {
        CommandResult r = run(List.of("find", dir, "-type", "f", "-printf", "%P\\0%s\\0"), Map.of(), Duration.ofMinutes(5));
        if (!r.ok()) {
            throw new IOException("cannot list " + dir + " on " + name + " to verify the copy: " + r.stderrText().strip());
        }
        String[] f = r.stdoutText().split("\0");
        for (int i = 0; i + 1 < f.length; i += 2) {
            Path copy = local.resolve(f[i]);
            long want = Long.parseLong(f[i + 1]);
            if (!Files.isRegularFile(copy) || Files.size(copy) != want) {
                throw new IOException("the copy of " + dir + " from " + name + " is not whole: " + f[i] + " has "
                        + (Files.isRegularFile(copy) ? Files.size(copy) + " bytes" : "no copy") + ", expected " + want + " bytes");
            }
        }
    }

    /**
     * Removes a runtime directory whose copy was verified, unless this host was told to keep them
     * ({@code --keep-remote}): real msprof output is GBs, left on the serving host by every run.
     */
    @Override
    public Optional<String> discardCopied(String dir) throws IOException {
        if (keepRemote) {
            return Optional.empty();
        }
        CommandResult r = run(List.of("rm", "-rf", "--", dir), Map.of(), Duration.ofMinutes(5));
        return Optional.of(r.ok() ? "removed the runtime directory " + dir + " on " + name + " after a verified copy (--keep-remote keeps it)"
                : "could not remove the runtime directory " + dir + " on " + name + ": " + r.stderrText().strip());
    }

    @Override
    public synchronized InetSocketAddress reach(int port) throws IOException {
        Integer local = forwards.get(port);
        if (local == null) {
            try {
                local = session.setPortForwardingL("127.0.0.1", 0, "127.0.0.1", port);
            } catch (JSchException e) {
                throw new IOException("cannot forward a local port to " + name + " port " + port + ": " + e.getMessage(), e);
            }
            forwards.put(port, local);
        }
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), local);
    }

    @Override
    public boolean portFree(int port) throws IOException {
        // the SSH server connects to the port on the far side: a refusal means nothing listens there
        Channel ch = null;
        try {
            ch = session.getStreamForwarder("127.0.0.1", port);
            ch.connect(5000);
            return false;
        } catch (JSchException e) {
            return true;
        } finally {
            if (ch != null) {
                ch.disconnect();
            }
        }
    }

    @Override
    public void guardGroup(long pgid) throws IOException {
        try {
            ChannelExec ch = (ChannelExec) session.openChannel("exec");
            ch.setCommand(remote(List.of("sh", "-c", GUARD_SCRIPT, "hbm-ledger-guard", Long.toString(pgid)), Map.of()));
            ch.setOutputStream(OutputStream.nullOutputStream());
            ch.setErrStream(OutputStream.nullOutputStream());
            ch.getOutputStream(); // keep stdin open: its EOF is the signal
            ch.connect(30_000);
            guards.add(ch);
        } catch (JSchException e) {
            throw new IOException("cannot start the guard on " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * Labels every command started from now on with {@link #LABEL}={@code runId} in its environment,
     * which its children inherit: if the connection's end never reaches this host (the network went
     * away with the collector), the guards and wrappers keep waiting, and a resume finds them by it.
     */
    @Override
    public void label(String runId) {
        label = runId;
    }

    @Override
    public List<String> endLeftovers(String runId, long sparePgid) throws IOException {
        List<String[]> found = leftovers(runId, sparePgid);
        if (found.isEmpty()) {
            return List.of();
        }
        Set<String> targets = new TreeSet<>();
        for (String[] f : found) {
            targets.add("-" + f[1]);   // the whole group: a child that dropped the label goes with it
            targets.add(f[0]);
        }
        List<String> kill = new ArrayList<>(List.of("sh", "-c", "for t; do kill -KILL \"$t\" 2>/dev/null; done; exit 0", "sh"));
        kill.addAll(targets);
        run(kill, Map.of(LABEL, ""), Duration.ofSeconds(20));
        List<String> ended = new ArrayList<>();
        for (String[] f : found) {
            ended.add("pid " + f[0] + " (process group " + f[1] + "): " + f[2].replaceAll("\\p{Cntrl}", "?"));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String[]> left = leftovers(runId, sparePgid);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            sleep(200);
            left = leftovers(runId, sparePgid);
        }
        for (String[] f : left) {
            ended.add("still running after SIGKILL: pid " + f[0] + " (process group " + f[1] + ")");
        }
        return ended;
    }

    /** pid, process group and command of each live process labelled {@code runId} outside group {@code sparePgid}. */
    private List<String[]> leftovers(String runId, long sparePgid) throws IOException {
        // unlabelled itself (LABEL empty), so that this search never finds its own processes
        CommandResult r = run(List.of("sh", "-c", LEFTOVERS_SCRIPT, "hbm-ledger-leftovers", runId, Long.toString(sparePgid)),
                Map.of(LABEL, ""), Duration.ofSeconds(60));
        if (!r.ok()) {
            throw new IOException("cannot list what collection " + runId + " left running on " + name + ": " + r.stderrText().strip());
        }
        List<String[]> out = new ArrayList<>();
        for (String line : r.stdoutText().split("\n")) {
            String[] f = line.split("\t", 3);
            if (f.length == 3 && f[0].matches("\\d+") && f[1].matches("\\d+")) {
                out.add(f);
            }
        }
        return out;
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public void close() {
        for (Channel c : guards) {
            c.disconnect();
        }
        session.disconnect();
    }

}

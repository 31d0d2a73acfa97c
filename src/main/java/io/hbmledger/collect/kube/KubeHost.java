package io.hbmledger.collect.kube;

import io.hbmledger.collect.CollectException;
import io.hbmledger.collect.CommandResult;
import io.hbmledger.collect.Host;
import io.hbmledger.collect.LocalHost;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container of a Kubernetes pod, reached through the user's {@code kubectl} (no client library:
 * the user's kubectl already holds their credentials, kubeconfig and context). Every command runs
 * through {@code kubectl exec} as an argument list ({@code sh -c SCRIPT sh ARGS...}, arguments as
 * $1.. never spliced into the script); the runtime directory comes back in one tar stream over
 * {@code kubectl exec}; HTTP to the server goes through {@code kubectl port-forward}. The container
 * needs {@code sh}, {@code setsid}, {@code tar} and {@code ps}, as over SSH.
 */
public final class KubeHost implements Host {

    private static final Pattern FORWARDING = Pattern.compile("Forwarding from 127\\.0\\.0\\.1:(\\d+) -> (\\d+)");

    private final Kubectl kubectl;
    private final KubeTarget target;
    private final Map<String, String> env;
    private final LocalHost local;
    private final Map<Integer, Integer> forwards = new HashMap<>();
    private final List<Process> forwarders = new ArrayList<>();

    /** @param env environment given to every command in the container (e.g. PATH with the CANN tools) */
    public KubeHost(Kubectl kubectl, KubeTarget target, Map<String, String> env) {
        this.kubectl = kubectl;
        this.target = target;
        this.env = Map.copyOf(env);
        this.local = new LocalHost(kubectl.env());
    }

    @Override
    public String name() {
        return "kube:" + target;
    }

    /** Runs {@code script} with {@code args} as $1.. in the container, under the host's environment. */
    private CommandResult sh(String script, List<String> args, Map<String, String> extraEnv, Duration timeout) throws IOException {
        List<String> argv = new ArrayList<>(List.of("env"));
        Map<String, String> all = new java.util.LinkedHashMap<>(env);
        all.putAll(extraEnv);
        all.forEach((k, v) -> argv.add(k + "=" + v));
        argv.addAll(List.of("sh", "-c", script, "sh"));
        argv.addAll(args);
        CommandResult r = local.run(kubectl.exec(target, argv), Map.of(), timeout);
        if (r.exitCode() != 0 && !r.timedOut() && (r.stderrText().startsWith("Error from server") || r.stderrText().startsWith("error: "))) {
            throw new IOException("kubectl exec into " + target + " failed: " + r.stderrText().strip());
        }
        return r;
    }

    private CommandResult sh(String script, String... args) throws IOException {
        return sh(script, List.of(args), Map.of(), Duration.ofSeconds(60));
    }

    @Override
    public boolean hasCommand(String program) throws IOException {
        return sh("command -v \"$1\" >/dev/null", program).ok();
    }

    @Override
    public CommandResult run(List<String> argv, Map<String, String> extraEnv, Duration timeout) throws IOException {
        // killed there too when kubectl is killed here: timeout(1) bounds the command in the container
        List<String> args = new ArrayList<>(List.of(Long.toString(Math.max(1, timeout.toSeconds()))));
        args.addAll(argv);
        return sh("t=$1; shift; exec timeout -s KILL \"$t\" \"$@\"", args, extraEnv, timeout.plusSeconds(10));
    }

    @Override
    public long startGroup(List<String> argv, Map<String, String> extraEnv, String workDir, String logFile) throws IOException {
        List<String> args = new ArrayList<>(List.of(workDir, logFile));
        args.addAll(argv);
        // answers once the child leads its own group: whatever ends the exec's own group then cannot reach it
        CommandResult r = sh("cd \"$1\" || exit 1; log=$2; shift 2; umask 077; setsid \"$@\" </dev/null >>\"$log\" 2>&1 & p=$!;"
                + " i=0; while [ \"$(ps -o pgid= -p \"$p\" | tr -d ' ')\" != \"$p\" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done;"
                + " echo \"$p\"", args, extraEnv, Duration.ofSeconds(60));
        String pid = r.stdoutText().strip();
        if (!r.ok() || !pid.matches("\\d+")) {
            throw new CollectException("could not start " + argv.get(0) + " in " + target + ": " + r.stderrText().strip());
        }
        return Long.parseLong(pid);
    }

    @Override
    public Set<Long> groupMembers(long pgid) throws IOException {
        CommandResult r = sh("ps -e -o pid= -o pgid= -o stat=");
        Set<Long> pids = new TreeSet<>();
        for (String line : r.stdoutText().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[1].equals(Long.toString(pgid)) && !f[2].startsWith("Z")) {
                pids.add(Long.parseLong(f[0]));
            }
        }
        return pids;
    }

    @Override
    public String startTime(long pid) throws IOException {
        CommandResult r = sh("cat /proc/\"$1\"/stat 2>/dev/null", Long.toString(pid));
        String stat = r.stdoutText();
        if (!r.ok() || !stat.contains(")")) {
            return null;
        }
        return LocalHost.statStartTime(stat);
    }

    @Override
    public void signalGroup(long pgid, String signal) throws IOException {
        sh("kill -\"$1\" -\"$2\" 2>/dev/null; exit 0", LocalHost.checkedSignal(signal), Long.toString(pgid));
    }

    @Override
    public void mkdirs(String dir) throws IOException {
        CommandResult r = sh("mkdir -p \"$1\" && chmod 700 \"$1\"", dir);
        if (!r.ok()) {
            throw new IOException("cannot create " + dir + " in " + target + ": " + r.stderrText().strip());
        }
    }

    @Override
    public String readText(String file) throws IOException {
        CommandResult r = sh("[ -f \"$1\" ] || exit 3; cat \"$1\"", file);
        return r.exitCode() == 3 ? null : r.stdoutText();
    }

    @Override
    public List<String> listFiles(String dir, String suffix) throws IOException {
        CommandResult r = sh("[ -d \"$1\" ] || exit 0; for f in \"$1\"/*; do [ -f \"$f\" ] && printf '%s\\n' \"$f\"; done; exit 0", dir);
        return r.stdoutText().lines().filter(f -> f.endsWith(suffix)).sorted().toList();
    }

    @Override
    public long size(String file) throws IOException {
        CommandResult r = sh("stat -c %s \"$1\"", file);
        if (!r.ok()) {
            throw new IOException("no file " + file + " in " + target + ": " + r.stderrText().strip());
        }
        return Long.parseLong(r.stdoutText().strip());
    }

    @Override
    public byte[] head(String file, long n) throws IOException {
        return sh("head -c \"$2\" \"$1\"", file, Long.toString(n)).stdout();
    }

    @Override
    public void fetchDirectory(String dir, Path localTarget, Duration timeout) throws IOException {
        Files.createDirectories(localTarget);
        // one tar stream over kubectl exec, unpacked as it arrives; pipefail: a broken exec is a failed copy
        List<String> argv = new ArrayList<>(List.of("bash", "-c", "set -o pipefail; dst=$1; shift; \"$@\" | tar -xf - -C \"$dst\"",
                "bash", localTarget.toString()));
        argv.addAll(kubectl.exec(target, List.of("tar", "-C", dir, "-cf", "-", ".")));
        CommandResult r = local.run(argv, Map.of(), timeout);
        if (!r.ok()) {
            throw new IOException("copy of " + dir + " from " + target + " through a tar stream over kubectl exec "
                    + (r.timedOut() ? "did not finish within " + timeout.toSeconds() + " s" : "failed: " + r.stderrText().strip()));
        }
    }

    @Override
    public synchronized InetSocketAddress reach(int port) throws IOException {
        Integer known = forwards.get(port);
        if (known == null) {
            known = forward(port);
            forwards.put(port, known);
        }
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), known);
    }

    /** {@code kubectl port-forward pod/POD :PORT}: kubectl picks the local port and says which. */
    private int forward(int port) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(kubectl.command(List.of("port-forward", "-n", target.namespace(),
                "pod/" + target.pod(), ":" + port)));
        pb.environment().putAll(kubectl.env());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        forwarders.add(p);
        var reader = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            Matcher m = FORWARDING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> reader.lines().forEach(l -> { }), "hbm-ledger-port-forward");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IOException("kubectl port-forward to " + target + " port " + port + " ended without forwarding");
    }

    @Override
    public boolean portFree(int port) throws IOException {
        // bash's /dev/tcp where there is bash; a container without it is taken as free (vLLM then says so)
        CommandResult r = sh("command -v bash >/dev/null || exit 0; bash -c 'exec 3<>/dev/tcp/127.0.0.1/'\"$1\" 2>/dev/null && exit 1; exit 0",
                Integer.toString(port));
        return r.exitCode() == 0;
    }

    /** No guard: kubectl exec holds no connection the container can watch once this collector is gone. */
    @Override
    public void guardGroup(long pgid) {
    }

    @Override
    public synchronized void close() {
        forwarders.forEach(Process::destroy);
        forwarders.clear();
        local.close();
    }

    /** The pods a label selector names in a namespace ({@code kubectl get pods -l SELECTOR -o name}), sorted. */
    public static List<KubeTarget> select(Kubectl kubectl, String namespace, String selector, String container) throws IOException {
        CommandResult r = new LocalHost(kubectl.env()).run(kubectl.command(List.of("get", "pods", "-n", namespace, "-l", selector, "-o", "name")),
                Map.of(), Duration.ofSeconds(60));
        if (!r.ok()) {
            throw new CollectException("kubectl get pods -n " + namespace + " -l " + selector + " failed: " + r.stderrText().strip());
        }
        return r.stdoutText().lines().map(String::strip).filter(l -> l.startsWith("pod/")).sorted()
                .map(l -> new KubeTarget(namespace, l.substring(4), container)).toList();
    }
}

package io.hbmledger.collect;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** This machine. Process groups are read from /proc and signalled with the shell's kill, because the JDK cannot send SIGINT. */
public final class LocalHost implements Host {

    // Runs beside the collector; when the collector's JVM disappears (even by SIGKILL) it stops the
    // group with the same INT -> TERM -> KILL ladder. Arguments arrive as $1 $2, never spliced in.
    static final String GUARD_SCRIPT = String.join("\n",
            "jvm=$1; pg=$2",
            "alive() { kill -0 -\"$pg\" 2>/dev/null; }",
            "while kill -0 \"$jvm\" 2>/dev/null; do alive || exit 0; sleep 0.5; done",
            "alive || exit 0",
            "kill -INT -\"$pg\" 2>/dev/null",
            "i=0; while [ $i -lt 30 ] && alive; do sleep 0.5; i=$((i+1)); done",
            "alive || exit 0",
            "kill -TERM -\"$pg\" 2>/dev/null",
            "i=0; while [ $i -lt 10 ] && alive; do sleep 0.5; i=$((i+1)); done",
            "alive && kill -KILL -\"$pg\" 2>/dev/null",
            "exit 0");

    // Every command of run() (npu-smi, msprof --export, tail) starts in its own process group under this
    // wrapper: a watcher beside it kills the whole group once the collector's JVM is gone, even by
    // SIGKILL, when no Java code runs any more. Java has no prctl(PR_SET_PDEATHSIG), hence the poll.
    // At the end the wrapper ignores TERM and sends it to its own group: the watcher and whatever the
    // command left in the group go too. Arguments arrive as $1.., never spliced in.
    static final String RUN_SCRIPT = String.join("\n",
            "jvm=$1; shift",
            "\"$@\" & c=$!",
            "{ while kill -0 \"$jvm\" 2>/dev/null; do sleep 0.5; done; kill -KILL 0; } </dev/null >/dev/null 2>&1 &",
            "wait \"$c\"; rc=$?",
            "trap '' TERM; kill -TERM 0 2>/dev/null",
            "exit $rc");

    private final Map<String, String> env;
    // commands of run() in flight, killed by close(): an interrupted collector leaves no npu-smi or msprof behind
    private final Set<Process> running = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** This machine with the collector's own environment. */
    public LocalHost() {
        this(Map.of());
    }

    /**
     * This machine with {@code env} laid over the collector's environment for every command; a PATH
     * given here is also where programs are looked up (the JDK itself only searches its own PATH).
     */
    public LocalHost(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public boolean hasCommand(String program) {
        return resolve(program) != null;
    }

    private String resolve(String program) {
        if (program.contains("/")) {
            return Files.isExecutable(Path.of(program)) ? program : null;
        }
        String path = env.getOrDefault("PATH", System.getenv("PATH"));
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return Path.of(dir, program).toString();
            }
        }
        return null;
    }

    private List<String> resolved(List<String> argv) {
        List<String> out = new ArrayList<>(argv);
        String exe = resolve(argv.get(0));
        if (exe != null) {
            out.set(0, exe);
        }
        return out;
    }

    @Override
    public CommandResult run(List<String> argv, Map<String, String> env, Duration timeout) throws IOException {
        Path out = Files.createTempFile("hbm-ledger-cmd", ".out");
        Path err = Files.createTempFile("hbm-ledger-cmd", ".err");
        try {
            List<String> cmd = new ArrayList<>(List.of("setsid", "sh", "-c", RUN_SCRIPT, "hbm-ledger-run",
                    Long.toString(ProcessHandle.current().pid())));
            cmd.addAll(resolved(argv));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(this.env);
            pb.environment().putAll(env);
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.redirectOutput(out.toFile());
            pb.redirectError(err.toFile());
            Process p = pb.start();
            running.add(p);
            boolean done;
            try {
                done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                killTree(p);
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running " + argv.get(0), e);
            } finally {
                running.remove(p);
            }
            if (!done) {
                killTree(p);
                return new CommandResult(-1, Files.readAllBytes(out), Files.readAllBytes(err), true);
            }
            return new CommandResult(p.exitValue(), Files.readAllBytes(out), Files.readAllBytes(err), false);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Kills the group {@code p} leads (setsid made it a leader), then whatever descends from it elsewhere. */
    private static void killTree(Process p) {
        try {
            new ProcessBuilder("sh", "-c", "kill -KILL -\"$1\"", "sh", Long.toString(p.pid())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no shell: the descendants below are still killed one by one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public long startGroup(List<String> argv, Map<String, String> env, String workDir, String logFile) throws IOException {
        List<String> cmd = new ArrayList<>();
        // setsid(1) does not fork when its caller is not a group leader (a JVM child never is), so the
        // pid we get is the new session's and group's id.
        cmd.add("setsid");
        cmd.addAll(resolved(argv));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(this.env);
        pb.environment().putAll(env);
        pb.directory(new File(workDir));
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        // the server's own output is unmasked (vLLM prints its --api-key in clear): readable by the user only
        Path log = Path.of(logFile);
        if (!Files.exists(log)) {
            Files.createFile(log, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.setPosixFilePermissions(log, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        }
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        return p.pid();
    }

    @Override
    public Set<Long> groupMembers(long pgid) throws IOException {
        Set<Long> pids = new TreeSet<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.filter(d -> d.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(d -> {
                try {
                    String stat = Files.readString(d.resolve("stat"), StandardCharsets.UTF_8);
                    // fields after the command name in parentheses: state ppid pgrp ...
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    if (!f[0].equals("Z") && Long.parseLong(f[2]) == pgid) {
                        pids.add(Long.parseLong(d.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException ignored) {
                    // the process ended while we looked
                }
            });
        }
        return pids;
    }

    @Override
    public String startTime(long pid) {
        try {
            return statStartTime(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException gone) {
            return null;
        }
    }

    /** Field 22 (starttime) of a /proc/PID/stat line; fields are counted after the ")" of the command name. */
    public static String statStartTime(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state), so field 22 is f[19]
        return f[19];
    }

    @Override
    public void signalGroup(long pgid, String signal) throws IOException {
        // the shell's own kill: no dependency on procps; signal and group id are passed as $1 $2
        run(List.of("sh", "-c", "kill -\"$1\" -\"$2\"", "sh", checkedSignal(signal), Long.toString(pgid)), Map.of(),
                Duration.ofSeconds(10));
    }

    public static String checkedSignal(String signal) {
        if (!List.of("INT", "TERM", "KILL").contains(signal)) {
            throw new IllegalArgumentException("signal " + signal + " is not one of INT, TERM, KILL");
        }
        return signal;
    }

    @Override
    public void mkdirs(String dir) throws IOException {
        Path d = Files.createDirectories(Path.of(dir));
        Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }

    @Override
    public String readText(String file) throws IOException {
        Path p = Path.of(file);
        return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : null;
    }

    @Override
    public List<String> listFiles(String dir, String suffix) throws IOException {
        Path d = Path.of(dir);
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(Files::isRegularFile).map(Path::toString).filter(n -> n.endsWith(suffix)).sorted().toList();
        }
    }

    @Override
    public long size(String file) throws IOException {
        return Files.size(Path.of(file));
    }

    @Override
    public byte[] head(String file, long n) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(Path.of(file))) {
            return in.readNBytes((int) Math.min(n, Integer.MAX_VALUE - 8));
        }
    }

    @Override
    public void fetchDirectory(String dir, Path localTarget, Duration timeout) throws IOException {
        Path src = Path.of(dir);
        Files.createDirectories(localTarget);
        try (Stream<Path> walk = Files.walk(src)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path rel = src.relativize(p);
                Path dst = localTarget.resolve(rel.toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(dst);
                } else if (Files.isRegularFile(p)) {
                    Files.copy(p, dst, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    @Override
    public InetSocketAddress reach(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    @Override
    public boolean portFree(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return false;
        } catch (IOException refused) {
            // nothing answers on loopback; check that the port can be bound on all interfaces too
        }
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    @Override
    public void guardGroup(long pgid) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("setsid", "sh", "-c", GUARD_SCRIPT, "hbm-ledger-guard",
                Long.toString(ProcessHandle.current().pid()), Long.toString(pgid));
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.start();
    }

    /** Kills the commands still running (not the serving executions, which live in their own groups). */
    @Override
    public void close() {
        for (Process p : running) {
            killTree(p);
        }
        running.clear();
    }
}

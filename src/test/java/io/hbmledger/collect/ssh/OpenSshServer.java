package io.hbmledger.collect.ssh;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSSH sshd on 127.0.0.1 and a free port, set up by the test: host and user keys in a
 * temporary directory, key login only. Skips (with the reason) when sshd is not installed, unless
 * CI=true, where that is a failure: .ci/run installs openssh-server.
 */
final class OpenSshServer implements AutoCloseable {

    final Path dir;
    final int port;
    final Path userKey;
    final Path knownHosts;
    final String user = System.getProperty("user.name");
    private Process sshd;

    private OpenSshServer(Path dir, int port, Path userKey, Path knownHosts, Process sshd) {
        this.dir = dir;
        this.port = port;
        this.userKey = userKey;
        this.knownHosts = knownHosts;
        this.sshd = sshd;
    }

    static Path sshdBinary() {
        for (String p : List.of("/usr/sbin/sshd", "/usr/bin/sshd", "/sbin/sshd")) {
            if (Files.isExecutable(Path.of(p))) {
                return Path.of(p);
            }
        }
        return null;
    }

    /** The sshd binary; skips the test (with the reason) where sshd cannot run, fails under CI=true. */
    static Path requireSshd() throws IOException {
        Path sshdBin = sshdBinary();
        if (sshdBin == null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("CI=true but no sshd binary: .ci/run must install openssh-server");
            }
            assumeTrue(false, "OpenSSH sshd not installed (apt-get install openssh-server); SSH collection test skipped");
        }
        Path privsep = Path.of("/run/sshd");
        if (!Files.isDirectory(privsep)) {
            try {
                Files.createDirectories(privsep);
            } catch (IOException e) {
                assumeTrue("true".equals(System.getenv("CI")), "sshd needs " + privsep + " and it cannot be made: " + e.getMessage());
                throw e;
            }
        }
        return sshdBin;
    }

    /** A host of its own: its own user key and known_hosts in {@code dir}. */
    static OpenSshServer start(Path dir) throws Exception {
        requireSshd();
        Files.createDirectories(dir);
        keygen(dir.resolve("user_key"));
        return start(dir, dir.resolve("user_key"), dir.resolve("known_hosts"), java.util.Map.of());
    }

    /**
     * One SIMULATED node of a cluster: its own sshd and host key, logging in with a key shared by
     * the cluster's sshds (one --identity), its host key added to a shared known_hosts, and
     * {@code env} set by sshd for every session (SetEnv), as a machine's own environment: e.g. its
     * own HBM_SIM_HOME, so that each node has its own simulated devices.
     */
    static OpenSshServer start(Path dir, Path userKey, Path knownHosts, java.util.Map<String, String> env) throws Exception {
        Path sshdBin = requireSshd();
        Files.createDirectories(dir);
        keygen(dir.resolve("host_key"));
        Files.copy(Path.of(userKey + ".pub"), dir.resolve("authorized_keys"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path config = dir.resolve("sshd_config");
        Files.writeString(config, String.join("\n",
                "Port " + port,
                "ListenAddress 127.0.0.1",
                "HostKey " + dir.resolve("host_key"),
                "PidFile " + dir.resolve("sshd.pid"),
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "StrictModes no",
                "UsePAM no",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",
                "PermitRootLogin prohibit-password",
                "AllowTcpForwarding yes",
                "LogLevel ERROR",
                env.isEmpty() ? "" : "SetEnv " + env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                        .collect(java.util.stream.Collectors.joining(" ")),
                ""));
        String[] hostPub = Files.readString(dir.resolve("host_key.pub")).strip().split("\\s+");
        Files.writeString(knownHosts, "[127.0.0.1]:" + port + " " + hostPub[0] + " " + hostPub[1] + "\n",
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        return new OpenSshServer(dir, port, userKey, knownHosts, listen(sshdBin, config, dir, port));
    }

    private static Process listen(Path sshdBin, Path config, Path dir, int port) throws Exception {
        Process p = new ProcessBuilder(sshdBin.toString(), "-D", "-e", "-f", config.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("sshd.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new AssertionError("sshd exited: " + Files.readString(dir.resolve("sshd.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return p;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        p.destroyForcibly();
        throw new AssertionError("sshd did not listen on port " + port + " within 20 s");
    }

    static void keygen(Path key) throws Exception {
        Process k = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "hbm-ledger-test", "-f", key.toString())
                .redirectErrorStream(true).start();
        String out = new String(k.getInputStream().readAllBytes());
        if (k.waitFor() != 0) {
            throw new AssertionError("ssh-keygen failed: " + out);
        }
    }

    /**
     * The node loses power: sshd and every session it forked (the collector's connection) are
     * killed at once, so the collector's SSH session breaks; the commands running in a session
     * end by their own guard when its channel closes. Only sshd processes are killed: a SIGKILL of
     * the user's shell while it reads its rc files can leave a stale lock behind (pyenv rehash's
     * .pyenv-shim, seen here), making every later SSH login on the machine wait a minute.
     */
    void cutOff() {
        sshd.descendants().filter(p -> p.info().command().map(c -> c.endsWith("/sshd")).orElse(false))
                .forEach(ProcessHandle::destroyForcibly);
        sshd.destroyForcibly();
        try {
            sshd.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The node is back: the same sshd (port, host key, environment) listens again. */
    void comeBack() throws Exception {
        sshd = listen(sshdBinary(), dir.resolve("sshd_config"), dir, port);
    }

    String target() {
        return user + "@127.0.0.1:" + port;
    }

    @Override
    public void close() {
        sshd.destroy();
        try {
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

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
    private final Process sshd;

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

    static OpenSshServer start(Path dir) throws Exception {
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
        Files.createDirectories(dir);
        keygen(dir.resolve("host_key"));
        keygen(dir.resolve("user_key"));
        Files.copy(dir.resolve("user_key.pub"), dir.resolve("authorized_keys"));
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
                ""));
        Path knownHosts = dir.resolve("known_hosts");
        String[] hostPub = Files.readString(dir.resolve("host_key.pub")).strip().split("\\s+");
        Files.writeString(knownHosts, "[127.0.0.1]:" + port + " " + hostPub[0] + " " + hostPub[1] + "\n");
        Process p = new ProcessBuilder(sshdBin.toString(), "-D", "-e", "-f", config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("sshd.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new AssertionError("sshd exited: " + Files.readString(dir.resolve("sshd.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return new OpenSshServer(dir, port, dir.resolve("user_key"), knownHosts, p);
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        p.destroyForcibly();
        throw new AssertionError("sshd did not listen on port " + port + " within 20 s");
    }

    private static void keygen(Path key) throws Exception {
        Process k = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "hbm-ledger-test", "-f", key.toString())
                .redirectErrorStream(true).start();
        String out = new String(k.getInputStream().readAllBytes());
        if (k.waitFor() != 0) {
            throw new AssertionError("ssh-keygen failed: " + out);
        }
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

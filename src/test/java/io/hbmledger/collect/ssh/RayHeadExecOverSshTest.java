package io.hbmledger.collect.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.cli.Main;
import io.hbmledger.collect.ExecutionRecord;
import io.hbmledger.collect.ExecutionSpec;
import io.hbmledger.collect.ExecutionStore;
import io.hbmledger.collect.Executions;
import io.hbmledger.collect.LocalHost;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code exec list / stop --ray-head} through the command line and a real OpenSSH sshd on loopback:
 * the SIMULATED ray of sim/bin on the "head" lists one alive node (the head) and one DEAD one; the
 * execution on the head is listed and stopped on a line prefixed by the head's node name.
 */
class RayHeadExecOverSshTest {

    @TempDir
    Path tmp;
    OpenSshServer sshd;

    @BeforeEach
    void setUp() throws Exception {
        sshd = OpenSshServer.start(tmp.resolve("sshd"));
    }

    @AfterEach
    void tearDown() throws Exception {
        LocalHost local = new LocalHost();
        for (ExecutionRecord r : new ExecutionStore(tmp.resolve("state")).list()) {
            if (!local.groupMembers(r.pgid()).isEmpty()) {
                local.signalGroup(r.pgid(), "KILL");
            }
        }
        if (sshd != null) {
            sshd.close();
        }
    }

    private String[] exec(String verb, String... more) {
        List<String> a = new ArrayList<>(List.of("exec", verb, "--state-dir", tmp.resolve("state").toString(),
                "--ray-head", sshd.target(), "--identity", sshd.userKey.toString(), "--known-hosts", sshd.knownHosts.toString(),
                "--remote-env", "PATH=" + tmp.resolve("bin") + ":/usr/bin:/bin",
                "--remote-env", "HBM_SIM_RAY_NODES=" + tmp.resolve("ray-nodes")));
        a.addAll(List.of(more));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(a.toArray(String[]::new));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    @Test
    void executionsOfTheRayClusterAreListedAndStoppedPerNode() throws Exception {
        // only ray on the head's PATH (no npu-smi: stop then does not wait for a device release)
        Files.createDirectories(tmp.resolve("bin"));
        Path ray = Files.writeString(tmp.resolve("bin/ray"), "#!/bin/sh\nexec '" + Path.of("sim/bin/ray").toAbsolutePath() + "' \"$@\"\n");
        ray.toFile().setExecutable(true);
        Files.writeString(tmp.resolve("ray-nodes"), "127.0.0.1 head ALIVE 8\n10.9.9.9 worker DEAD 8\n");
        ExecutionStore store = new ExecutionStore(tmp.resolve("state"));
        Files.createDirectories(store.root());
        String node = "127.0.0.1-" + sshd.target().substring(sshd.target().lastIndexOf(':') + 1);
        try (SshHost head = SshHost.connect(sshd.target(), sshd.userKey, sshd.knownHosts, Map.of(), Duration.ofSeconds(30))) {
            Files.createDirectories(tmp.resolve("runtime"));
            new Executions(head, store, tmp.resolve("runtime").toString()).start(ExecutionSpec.fromCommand(
                    List.of("sleep", "300"), 8000, List.of(0), Map.of(), null, tmp.toString()), "r1", "test");
        }

        String[] list = exec("list");
        assertThat(list[0]).as(list[2]).isEqualTo("0");
        assertThat(list[1]).containsPattern("(?m)^\\[" + node.replace(".", "\\.") + "\\] +r1 +starting +yes +8000 ");

        String[] stop = exec("stop", "r1");
        assertThat(stop[0]).as(stop[2]).isEqualTo("0");
        assertThat(stop[1]).startsWith("[" + node + "]").contains("r1: stopped after SIGINT");
        assertThat(store.get("r1").state()).isEqualTo("stopped");
    }
}

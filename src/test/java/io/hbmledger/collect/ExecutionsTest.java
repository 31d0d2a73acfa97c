package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecutionsTest {

    @TempDir
    Path tmp;
    FakeAscend fake;
    int port;

    @BeforeEach
    void setUp() throws Exception {
        fake = new FakeAscend(tmp);
        port = FakeAscend.freePort();
    }

    @AfterEach
    void tearDown() throws Exception {
        fake.close();
    }

    ExecutionRecord startReady(Executions ex, String id) throws Exception {
        ExecutionSpec es = ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "--port", Integer.toString(port)), null,
                List.of(0), Map.of(), null, tmp.toString());
        return ex.awaitReady(ex.start(es, id, "test"), new ServerClient(ex.host().reach(port), null), Duration.ofSeconds(20));
    }

    @Test
    void aServerIgnoringSigintGetsSigtermAndTheWholeGroupGoes() throws Exception {
        fake.env.put("FAKE_IGNORE_INT", "1");
        Executions ex = fake.executions(fake.host());
        ExecutionRecord rec = startReady(ex, "exec-int-ignored");
        // the runtime directory holds the server's unmasked output: private to the user
        Path runtime = Path.of(rec.runtimeDir());
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(runtime)))
                .isEqualTo("rwx------");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                java.nio.file.Files.getPosixFilePermissions(runtime.resolve(Executions.LOG)))).isEqualTo("rw-------");
        Set<Long> members = fake.host().groupMembers(rec.pgid());
        // the fake server, plus its "worker" child (sleep 1000)
        assertThat(members).hasSizeGreaterThanOrEqualTo(2).contains(rec.pgid());
        assertThat(rec.serverPids()).containsExactlyElementsOf(members);

        Executions.StopReport r = ex.stop(rec, new Executions.StopTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(5),
                Duration.ofSeconds(2), Duration.ofSeconds(3)), new NpuSmi(fake.host(), Duration.ofSeconds(5)));

        assertThat(r.signal()).isEqualTo("TERM");
        assertThat(r.stopped()).isTrue();
        assertThat(r.devicesReleased()).isTrue();
        // every member, the worker child included, is gone (zombies not yet reaped by the JVM do not count)
        assertThat(fake.host().groupMembers(rec.pgid())).isEmpty();
        assertThat(ex.tail(rec, 5)).contains("ignoring SIGINT", "stopping on signal 15");
        assertThat(fake.store().get(rec.id()).state()).isEqualTo("stopped");
    }

    @Test
    void readinessTimesOutWithTheLogWhenTheServerNeverAnswers() throws Exception {
        fake.env.put("FAKE_START_DELAY", "30");
        Executions ex = fake.executions(fake.host());
        ExecutionSpec es = ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "--port", Integer.toString(port)), null,
                List.of(0), Map.of(), null, tmp.toString());
        ExecutionRecord rec = ex.start(es, "exec-slow", "test");
        assertThatThrownBy(() -> ex.awaitReady(rec, new ServerClient(fake.host().reach(port), null), Duration.ofSeconds(2)))
                .hasMessageContaining("not ready after 2 s").hasMessageContaining("fake-vllm args=");
        assertThat(ex.alive(rec)).isTrue();
    }

    @Test
    void aStaleRecordWhosePidWasReusedIsNeverSignalled() throws Exception {
        // another program's group: setsid makes its pid its group id, as for our executions
        Process other = new ProcessBuilder("setsid", "sleep", "60").start();
        try {
            long pgid = other.pid();
            String start = fake.host().startTime(pgid);
            assertThat(start).isNotNull();
            // setsid(2) runs in the child a moment after start(): wait for the group to exist
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (fake.host().groupMembers(pgid).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(fake.host().groupMembers(pgid)).containsExactly(pgid);
            // a record of an execution that had the same id but started at another time
            ExecutionRecord stale = new ExecutionRecord(ExecutionRecord.SCHEMA, "exec-old", "local", tmp.toString(),
                    List.of("vllm", "serve", "m"), pgid, pgid, port, "m", 1, 1, false, List.of(0), "server.log", null,
                    "exec start", "2026-01-01T00:00:00Z", null, "ready", List.of(pgid), null, null,
                    Long.toString(Long.parseLong(start) + 1));
            Executions ex = fake.executions(fake.host());
            fake.store().save(stale);
            assertThat(ex.alive(stale)).isFalse();
            Executions.StopReport r = ex.stop(stale, FakeAscend.fast().stop(), null);
            assertThat(r.signal()).isNull();
            assertThat(r.detail()).isEqualTo("already stopped");
            assertThat(other.isAlive()).isTrue();
            // the same record with the right start time is this group
            ExecutionRecord same = new ExecutionRecord(stale.schema(), stale.id(), stale.host(), stale.runtimeDir(), stale.command(),
                    pgid, pgid, port, "m", 1, 1, false, List.of(0), "server.log", null, "exec start", stale.started(), null,
                    "ready", List.of(pgid), null, null, start);
            assertThat(ex.alive(same)).isTrue();
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void portAndParallelismAreReadFromTheCommand() {
        ExecutionSpec es = ExecutionSpec.fromCommand(List.of("vllm", "serve", "/m", "--tensor-parallel-size", "4", "-dp", "2",
                "--enable-expert-parallel", "--port=9001"), null, null, Map.of(), null, null);
        assertThat(es.port()).isEqualTo(9001);
        assertThat(es.model()).isEqualTo("/m");
        assertThat(es.tp()).isEqualTo(4);
        assertThat(es.dp()).isEqualTo(2);
        assertThat(es.ep()).isTrue();
        // default devices: 0 .. tp*dp-1 = 0..7
        assertThat(es.devices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        // TP 4 on 2 devices would fail only after the baseline and the start: refused up front
        assertThatThrownBy(() -> ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "-tp", "4"), null, List.of(0, 1), Map.of(),
                null, null)).isInstanceOf(ArgumentException.class)
                .hasMessageContaining("needs 4 devices (TP 4) but --devices gives 2 ([0, 1])");
        // TP 2 x PP 2 x DP 2 = 8 devices: 6 are too few, and the default is 0..7
        assertThatThrownBy(() -> ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "-tp", "2", "-pp", "2", "-dp", "2"), null,
                List.of(0, 1, 2, 3, 4, 5), Map.of(), null, null)).hasMessageContaining("needs 8 devices (TP 2 x PP 2 x DP 2)");
        assertThat(ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "-tp", "2", "-pp", "2", "-dp", "2"), null, null, Map.of(),
                null, null).devices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        // more devices than the command uses: vLLM's workers take the first one, device 1 would be locked,
        // sampled and named in run.json for no rank (a fresh user's 'exec start --devices 0,1 -- vllm serve m')
        assertThatThrownBy(() -> ExecutionSpec.fromCommand(List.of("vllm", "serve", "m"), null, List.of(0, 1), Map.of(),
                null, null)).isInstanceOf(ArgumentException.class)
                .hasMessageContaining("uses 1 device (TP 1) but --devices gives 2 ([0, 1]); vLLM would leave [1] idle")
                .hasMessageContaining("--devices 0,");
        // TP 2 x PP 2 on four devices is exact, and the pipeline size is known for run.json
        ExecutionSpec pp = ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "-tp", "2", "--pipeline-parallel-size", "2"),
                null, List.of(4, 5, 6, 7), Map.of(), null, null);
        assertThat(pp.pp()).isEqualTo(2);
        // two ports, a port out of range, a bad size: bad arguments like the rest (exit 2 in the CLI)
        assertThatThrownBy(() -> ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "--port", "18610"), 18609, null, Map.of(),
                null, null)).isInstanceOf(ArgumentException.class).hasMessageContaining("--port 18609 given to hbm-ledger but the command says --port 18610");
        assertThatThrownBy(() -> ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "--port", "70000"), null, null, Map.of(),
                null, null)).isInstanceOf(ArgumentException.class).hasMessageContaining("port 70000: expected a TCP port");
        assertThatThrownBy(() -> ExecutionSpec.fromCommand(List.of("vllm", "serve", "m", "-tp", "two"), null, null, Map.of(),
                null, null)).isInstanceOf(ArgumentException.class).hasMessageContaining("-tp expects a whole number, found 'two'");
        assertThatThrownBy(() -> ExecutionSpec.fromCommand(List.of("vllm", "serve", "/m", "--port", "80"), 81, null, Map.of(), null, null))
                .hasMessageContaining("--port 81 given to hbm-ledger but the command says --port 80");
    }

    /**
     * A resume that found its execution still running stops it; when the execution ends by itself
     * between that check and the stop, no signal is sent, and recording the stop threw a
     * NullPointerException (Map.of with a null value; SshResumeTest failed so under load).
     */
    @Test
    void aStopWithoutASignalIsRecordedWithoutOne() {
        Executions.StopReport ended = new Executions.StopReport(null, true, true, "had already exited");
        assertThat(ended.journalEntry("stopped by resume: had already exited"))
                .containsExactly(Map.entry("detail", "stopped by resume: had already exited"));
        Executions.StopReport killed = new Executions.StopReport("TERM", true, true, "stopped by TERM");
        assertThat(killed.journalEntry("stopped by TERM"))
                .containsExactly(Map.entry("detail", "stopped by TERM"), Map.entry("last_signal", "TERM"));
    }
}

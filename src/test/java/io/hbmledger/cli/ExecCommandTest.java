package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The exec verbs through the command line, with the fake vLLM server of src/test/resources/collect/fakebin. */
class ExecCommandTest {

    static final String VLLM = Path.of("src/test/resources/collect/fakebin/vllm").toAbsolutePath().toString();

    @TempDir
    Path tmp;
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    int run(String... args) {
        CommandLine cl = Main.newCommandLine();
        // buffered and flushed on println only, like picocli's default writer over System.out
        cl.setOut(new PrintWriter(new java.io.BufferedWriter(out), true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @AfterEach
    void stopLeftovers() {
        run("exec", "stop", "--state-dir", tmp.toString(), "--int-timeout", "2", "--term-timeout", "2", "e1");
        run("exec", "stop", "--state-dir", tmp.toString(), "--int-timeout", "2", "--term-timeout", "2", "e2");
    }

    @Test
    void startStatusListLogsStop() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String state = tmp.toString();
        assertThat(run("exec", "start", "--state-dir", state, "--id", "e1", "--devices", "0", "--ready-timeout", "20",
                "--", VLLM, "serve", "my model", "--api-key", "sk-secret-99", "--port", Integer.toString(port)))
                .as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo("e1\n");
        assertThat(err.toString()).contains("execution e1 is ready on port " + port);

        assertThat(run("exec", "status", "--state-dir", state, "e1")).isZero();
        assertThat(out.toString()).contains("state:     ready (process group", "answers:   /health yes, /v1/models yes",
                "model:     my model", "devices:   [0]", "--api-key ***").doesNotContain("sk-secret-99");

        assertThat(run("exec", "list", "--state-dir", state)).isZero();
        assertThat(out.toString()).containsPattern("e1\\s+ready\\s+yes\\s+" + port);

        int before = out.toString().length();
        assertThat(run("exec", "logs", "--state-dir", state, "-n", "5", "e1")).isZero();
        // the fake server prints its environment: exec start sets DEBUG as collect does, for V1's memory split
        assertThat(out.toString().substring(before)).contains("Starting vLLM API server", "VLLM_LOGGING_LEVEL=DEBUG")
                .doesNotContain("sk-secret-99");

        // a probe with the wrong key (PATH's value) gets 401: it fails at once with a hint, and says the
        // execution is left running
        int port2;
        try (ServerSocket s = new ServerSocket(0)) {
            port2 = s.getLocalPort();
        }
        err.getBuffer().setLength(0);
        assertThat(run("exec", "start", "--state-dir", state, "--id", "e2", "--devices", "1", "--ready-timeout", "20",
                "--api-key-env", "PATH", "--", VLLM, "serve", "m2", "--api-key", "sk-secret-77", "--port",
                Integer.toString(port2))).isEqualTo(1);
        assertThat(err.toString()).contains("/v1/models answers 401 Unauthorized", "--api-key-env",
                "left running; stop it with 'hbm-ledger exec stop e2 --state-dir " + state + "'")
                .doesNotContain("not ready after");
        assertThat(run("exec", "status", "--state-dir", state, "e2")).isZero();
        assertThat(out.toString()).contains("/v1/models yes, 401 without an API key");

        assertThat(run("exec", "stop", "--state-dir", state, "e1")).isZero();
        assertThat(out.toString()).contains("e1: stopped after SIGINT");
        assertThat(run("exec", "status", "--state-dir", state, "e1")).isZero();
        assertThat(out.toString()).contains("state:     stopped (no process left)");

        assertThat(run("exec", "status", "--state-dir", state, "nope")).isEqualTo(2);
        assertThat(err.toString()).contains("no execution 'nope' in " + state);
    }

    @Test
    void execHelpWrapsItsSentenceOnlyAtTheWidth() {
        assertThat(run("exec", "--help")).isZero();
        String help = out.toString();
        // one sentence, wrapped by picocli at the usage width (80): no line of it ends short, as the
        // old "with an id,\nits own runtime directory" did (a line break written into the text)
        java.util.List<String> lines = help.lines().dropWhile(l -> !l.startsWith("Managed serving executions"))
                .takeWhile(l -> !l.isBlank() && !l.startsWith("  -")).toList();
        assertThat(String.join(" ", lines)).contains("with an id, its own runtime directory and process group; stop it");
        for (String l : lines.subList(0, lines.size() - 1)) {
            assertThat(l.length()).as(l).isGreaterThan(60);
        }
    }

    @Test
    void badArgumentsExitTwoAsTheHelpSaysAndStartNothing() throws Exception {
        // exec start's help: "2: bad arguments" (collect gives 2 for the same mistakes)
        String state = tmp.resolve("state").toString();
        assertThat(run("exec", "start", "--state-dir", state, "--devices", "0", "--port", "18609", "--", VLLM, "serve", "m",
                "--port", "18610")).isEqualTo(2);
        assertThat(err.toString()).contains("--port 18609 given to hbm-ledger but the command says --port 18610");
        assertThat(run("exec", "start", "--state-dir", state, "--devices", "0,1", "--", VLLM, "serve", "m")).isEqualTo(2);
        assertThat(err.toString()).contains("vLLM would leave [1] idle");
        assertThat(run("exec", "start", "--state-dir", state, "--devices", "3,3", "--", VLLM, "serve", "m")).isEqualTo(2);
        assertThat(err.toString()).contains("device 3 is listed twice");
        assertThat(run("exec", "start", "--state-dir", state, "--api-key-env", "HBM_LEDGER_TEST_NO_SUCH_VARIABLE", "--", VLLM,
                "serve", "m")).isEqualTo(2);
        assertThat(err.toString()).contains("--api-key-env HBM_LEDGER_TEST_NO_SUCH_VARIABLE names a variable that is not set");
        // refused before anything started: no execution recorded
        assertThat(run("exec", "list", "--state-dir", state)).isZero();
        assertThat(out.toString().strip().lines()).hasSize(1);
    }

    @Test
    void aStateDirectoryThatIsAFileIsRefusedByEveryVerb() throws Exception {
        // was: exec start printed a Java stack trace ("FileSystemException: ...: Not a directory") and exited 1,
        // exec list listed nothing
        java.nio.file.Path file = java.nio.file.Files.writeString(tmp.resolve("afile"), "");
        for (String[] verb : new String[][] {{"exec", "start", "--no-wait", "--", VLLM, "serve", "m"}, {"exec", "list"},
            {"exec", "status", "e1"}, {"exec", "logs", "e1"}, {"exec", "stop", "e1"}}) {
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(verb));
            args.addAll(2, java.util.List.of("--state-dir", file.toString()));
            int before = err.toString().length();
            assertThat(run(args.toArray(String[]::new))).as(String.join(" ", verb)).isEqualTo(2);
            assertThat(err.toString().substring(before)).as(String.join(" ", verb))
                    .contains("--state-dir " + file + ": expected the directory of execution records, found a regular file")
                    .doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    @Test
    void aDamagedExecutionRecordIsNamedNotAStackTrace() throws Exception {
        java.nio.file.Path bad = java.nio.file.Files.createDirectories(tmp.resolve("state").resolve("exec-bad"));
        java.nio.file.Files.writeString(bad.resolve("execution.json"), "{\"schema\": 1,\n");
        assertThat(run("exec", "list", "--state-dir", tmp.resolve("state").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("hbm-ledger exec list: " + bad.resolve("execution.json") + ":2: not a readable execution record")
                .contains("Move that execution's directory out of " + tmp.resolve("state")).doesNotContain("\tat ");
        assertThat(out.toString()).isEmpty();
    }
}


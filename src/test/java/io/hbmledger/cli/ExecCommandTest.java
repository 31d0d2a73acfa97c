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
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @AfterEach
    void stopLeftovers() {
        run("exec", "stop", "--state-dir", tmp.toString(), "--int-timeout", "2", "--term-timeout", "2", "e1");
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

        assertThat(run("exec", "logs", "--state-dir", state, "-n", "5", "e1")).isZero();
        assertThat(out.toString()).contains("Starting vLLM API server").doesNotContain("sk-secret-99");

        assertThat(run("exec", "stop", "--state-dir", state, "e1")).isZero();
        assertThat(out.toString()).contains("e1: stopped after SIGINT");
        assertThat(run("exec", "status", "--state-dir", state, "e1")).isZero();
        assertThat(out.toString()).contains("state:     stopped (no process left)");

        assertThat(run("exec", "status", "--state-dir", state, "nope")).isEqualTo(2);
        assertThat(err.toString()).contains("no execution 'nope' in " + state);
    }
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * collect's refusals through the real command line, in its own JVM (collect writes to the
 * process's stderr): exit 2, one line saying what to do, no stack trace, nothing created.
 */
class CollectArgumentsTest {

    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {
    }

    private Run collect(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "collect"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("out.txt").toFile())
                .redirectError(tmp.resolve("err.txt").toFile());
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(tmp.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(tmp.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    @Test
    void anOutThatIsAFileOrGoesThroughOneIsRefusedWithExitTwo() throws Exception {
        Path file = Files.writeString(tmp.resolve("afile"), "");
        String state = tmp.resolve("state").toString();
        for (Path out : List.of(file, file.resolve("sub"))) {
            Run r = collect("--state-dir", state, "--out", out.toString(), "--devices", "0", "--", "vllm", "serve", "m");
            assertThat(r.exit()).as(r.err()).isEqualTo(2);
            assertThat(r.err()).startsWith("hbm-ledger collect: --out " + out + ": expected a new run directory")
                    .contains("regular file").doesNotContain("Exception").doesNotContain("\tat ");
            assertThat(r.out()).isEmpty();
        }
        assertThat(Files.size(file)).isZero();
    }

    @Test
    void aRayHeadWithHostListsIsRefusedBeforeAnyConnection() throws Exception {
        Path out = tmp.resolve("run");
        Run r = collect("--state-dir", tmp.resolve("state").toString(), "--out", out.toString(), "--ray-head", "root@head",
                "--host", "root@other", "--", "vllm", "serve", "m");
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("hbm-ledger collect: --ray-head finds the nodes itself; give it without --host")
                .doesNotContain("Exception");
        assertThat(out).doesNotExist();
    }

    @Test
    void aStateDirectoryThatIsAFileIsRefusedBeforeAnyRunDirectoryIsMade() throws Exception {
        // was: exit 1 and a failed run.json left in --out ("locks: Not a directory" in preflight)
        Path file = Files.writeString(tmp.resolve("afile"), "");
        Path out = tmp.resolve("run");
        Run r = collect("--state-dir", file.toString(), "--out", out.toString(), "--devices", "0", "--", "vllm", "serve", "m");
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains("--state-dir " + file + ": expected the directory of execution records, found a regular file");
        assertThat(out).doesNotExist();
    }

    @Test
    void numbersThatCannotWorkAreRefused() throws Exception {
        Path out = tmp.resolve("run");
        Run r = collect("--state-dir", tmp.resolve("state").toString(), "--out", out.toString(), "--requests", "0", "--", "vllm",
                "serve", "m");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--requests 0: expected a whole number >= 1");
        r = collect("--state-dir", tmp.resolve("state").toString(), "--out", out.toString(), "--sample-interval", "-1", "--",
                "vllm", "serve", "m");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--sample-interval -1.0: expected a number of seconds > 0");
        assertThat(out).doesNotExist();
    }
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * analyze on a run directory it may not write to (mode 555), in its own JVM. Root ignores mode
 * bits, so as root the JVM runs without CAP_DAC_OVERRIDE (setpriv --bounding-set): still uid 0,
 * so the class path under /root stays readable, but the run directory's mode now holds.
 */
class AnalyzeReadOnlyRunTest {

    @TempDir
    Path tmp;
    Path run;

    @AfterEach
    void writableAgain() throws Exception {
        if (run != null) {
            Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private static boolean root() throws Exception {
        return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
    }

    /** The command, run so that mode bits hold: as root without the capability to override them. */
    private static List<String> unprivileged(List<String> cmd) throws Exception {
        List<String> out = new ArrayList<>();
        if (root()) {
            Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "running as root without setpriv");
            out.addAll(List.of("/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search"));
        }
        out.addAll(cmd);
        return out;
    }

    @Test
    void aReadOnlyRunSaysWhyReportJsonWasNotWrittenAndStillPrintsTheLedger() throws Exception {
        run = Files.createDirectories(tmp.resolve("ro"));
        Path ev = Files.createDirectories(run.resolve("evidence"));
        Path a3 = Path.of("examples/a3-llama3.1-8b-eagle3");
        Files.copy(a3.resolve("run.json"), run.resolve("run.json"));
        for (String f : List.of("npu-smi-idle.txt", "vllm-startup.log")) {
            Files.copy(a3.resolve("evidence").resolve(f), ev.resolve(f));
        }
        Files.writeString(run.resolve("report.json"), "previous report");
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("r-xr-xr-x"));
        Process probe = new ProcessBuilder(unprivileged(List.of("touch", run.resolve("probe").toString()))).start();
        assertThat(probe.waitFor(20, TimeUnit.SECONDS)).isTrue();
        Assumptions.assumeTrue(probe.exitValue() != 0, "mode bits are not enforced here (no setpriv capability drop)");

        List<String> cmd = unprivileged(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "analyze", run.toString()));
        Process p = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("out.txt").toFile())
                .redirectError(tmp.resolve("err.txt").toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(tmp.resolve("out.txt"), StandardCharsets.UTF_8);
        String err = Files.readString(tmp.resolve("err.txt"), StandardCharsets.UTF_8);

        // exit 0: the ledger, the answer, is printed whole (docs/readme-ledger.md, analyze's exit codes)
        assertThat(p.exitValue()).as(err).isZero();
        assertThat(out).contains("HBM ledger for " + run, "npu:0/chip:0");
        // was: "could not write .../report.json: .../.report.json.1693....tmp": the reason was a temporary file's name
        assertThat(err).contains("report.json not written: cannot write " + run.resolve("report.json") + ": permission denied")
                .contains("The report.json there is from an earlier analysis and was NOT updated")
                .contains("--format json > FILE", "--no-write", "copy the run directory")
                .doesNotContain(".tmp");
        assertThat(Files.readString(run.resolve("report.json"))).isEqualTo("previous report");
        try (Stream<Path> left = Files.list(run)) {
            assertThat(left.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("run.json", "evidence", "report.json");
        }
    }

    @Test
    void anUnreadableRunJsonIsOneLineAndExitTwoNotAStackTrace() throws Exception {
        // an IOException no verb turns into a message itself reaches Main's handler
        run = Files.createDirectories(tmp.resolve("locked"));
        Files.copy(Path.of("examples/a3-llama3.1-8b-eagle3/run.json"), run.resolve("run.json"));
        Files.setPosixFilePermissions(run.resolve("run.json"), PosixFilePermissions.fromString("---------"));
        Process probe = new ProcessBuilder(unprivileged(List.of("cat", run.resolve("run.json").toString()))).start();
        assertThat(probe.waitFor(20, TimeUnit.SECONDS)).isTrue();
        Assumptions.assumeTrue(probe.exitValue() != 0, "mode bits are not enforced here (no setpriv capability drop)");
        List<String> cmd = unprivileged(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "analyze", run.toString()));
        Process p = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("out.txt").toFile())
                .redirectError(tmp.resolve("err.txt").toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String err = Files.readString(tmp.resolve("err.txt"), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isEqualTo(2);
        assertThat(err).isEqualTo("hbm-ledger analyze: " + run.resolve("run.json") + ": permission denied (this user lacks the"
                + " permission: run as the owner, change the permissions, or choose another place); stopped there. Check that path"
                + " (an option, an argument, --state-dir or $HBM_LEDGER_STATE)\n");
        Files.setPosixFilePermissions(run.resolve("run.json"), PosixFilePermissions.fromString("rw-r--r--"));
    }
}


package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run directory whose name is not ASCII, named on the command line of a JVM started under
 * LC_ALL=C (Java 17 decodes arguments and file names with the locale's charset; the ./hbm-ledger
 * launcher avoids this, see LauncherTest, but 'java -jar' does not).
 */
class NonAsciiPathTest {

    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {
    }

    private Run analyze(Map<String, String> locale, Path run) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.hbmledger.cli.Main", "analyze", "--no-write", run.toString())
                .redirectOutput(tmp.resolve("out.txt").toFile()).redirectError(tmp.resolve("err.txt").toFile());
        pb.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
        pb.environment().putAll(locale);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(tmp.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(tmp.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    @Test
    void aPathTheLocaleCannotEncodeIsExplainedWithTheFix() throws Exception {
        Assumptions.assumeTrue("UTF-8".equals(System.getProperty("sun.jnu.encoding")), "the test JVM itself needs a UTF-8 locale");
        Path run = Files.createDirectories(tmp.resolve("dir with spaces").resolve("日本語 ü"));
        Path a3 = Path.of("examples/a3-llama3.1-8b-eagle3");
        Files.createDirectories(run.resolve("evidence"));
        Files.copy(a3.resolve("run.json"), run.resolve("run.json"));
        for (String f : List.of("npu-smi-idle.txt", "vllm-startup.log")) {
            Files.copy(a3.resolve("evidence").resolve(f), run.resolve("evidence").resolve(f));
        }
        Run c = analyze(Map.of("LC_ALL", "C"), run);
        // was: "cannot convert '...?????' to interface java.nio.file.Path (java.nio.file.InvalidPathException: ...)"
        assertThat(c.exit()).as(c.err()).isEqualTo(2);
        assertThat(c.err()).contains("is not a usable path: it holds characters that this locale's file-name encoding")
                .contains("Run under a UTF-8 locale, e.g. 'LC_ALL=C.UTF-8 hbm-ledger ...'")
                .doesNotContain("InvalidPathException");
        // the fix it names works
        Run u = analyze(Map.of("LC_ALL", "C.UTF-8"), run);
        assertThat(u.exit()).as(u.err()).isZero();
        assertThat(u.out()).contains("HBM ledger for " + run);
    }
}

package io.hbmledger.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Headless Chromium (Debian's {@code chromium}, installed by .ci/run) for page checks. Without
 * it the calling test is skipped with a message; under CI ({@code CI=true}) its absence fails.
 */
public final class Chromium {

    private final Path binary;

    private Chromium(Path binary) {
        this.binary = binary;
    }

    public static Chromium find() {
        for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return new Chromium(p);
                }
            }
        }
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI=true but no chromium on PATH: .ci/run installs it (apt-get install chromium)");
        }
        assumeTrue(false, "Chromium not installed (apt-get install chromium): the HTML report is not checked in a browser");
        throw new IllegalStateException("unreachable");
    }

    /** What a page load gave: the DOM after its scripts ran, and Chromium's log (console messages included). */
    public record Page(String dom, String log) {
        /** Console messages and uncaught errors of the page, as Chromium logs them. */
        public List<String> consoleMessages() {
            return log.lines().filter(l -> l.contains(":CONSOLE")).toList();
        }
    }

    /** Loads the file offline and returns the DOM after its scripts ran, with the console log. */
    public Page dumpDom(Path html) throws IOException, InterruptedException {
        Path log = Files.createTempFile("chromium", ".log");
        Path dom = Files.createTempFile("chromium", ".html");
        try {
            run(html, dom, log, "--dump-dom");
            return new Page(Files.readString(dom, StandardCharsets.UTF_8), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
            Files.deleteIfExists(dom);
        }
    }

    /** A PNG of the page at 1280 x height. */
    public void screenshot(Path html, Path png, int height) throws IOException, InterruptedException {
        Path log = Files.createTempFile("chromium", ".log");
        try {
            run(html, log, log, "--screenshot=" + png.toAbsolutePath(), "--window-size=1280," + height, "--hide-scrollbars");
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private void run(Path html, Path out, Path err, String... args) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("chromium-profile");
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile,
                // no network at all: the page must be self-contained
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--enable-logging=stderr", "--v=0"));
        cmd.addAll(List.of(args));
        cmd.add(html.toAbsolutePath().toUri().toString());
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 120 s: " + cmd);
        }
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}

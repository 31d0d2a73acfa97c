package io.hbmledger.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Test helper: one simulator main class in its own JVM and its own process group ({@code setsid}),
 * with stdout and stderr in files. {@link #killGroup()} ends the whole group; tests call it in
 * {@code @AfterEach} so no process outlives a test.
 */
final class SimProcess implements AutoCloseable {

    final Process process;
    final Path out;
    final Path err;

    private SimProcess(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    static SimProcess start(Path logDir, Class<?> main, List<String> args, Map<String, String> env)
            throws IOException {
        Files.createDirectories(logDir);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of("setsid", java, "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(args);
        Path out = Files.createTempFile(logDir, main.getSimpleName(), ".out");
        Path err = Files.createTempFile(logDir, main.getSimpleName(), ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("ASCEND_RT_VISIBLE_DEVICES");
        pb.environment().remove("VLLM_LOGGING_LEVEL");
        pb.environment().putAll(env);
        return new SimProcess(pb.start(), out, err);
    }

    long pid() {
        return process.pid();
    }

    String stdout() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    String stderr() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    /** Waits until stdout or stderr contains {@code text}; fails with both logs when it does not. */
    void awaitOutput(String text, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (stdout().contains(text) || stderr().contains(text)) {
                return;
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        if (stdout().contains(text) || stderr().contains(text)) {
            return;
        }
        throw new AssertionError("no '" + text + "' within " + timeout + " (alive=" + process.isAlive()
                + ")\n--- stdout\n" + stdout() + "\n--- stderr\n" + stderr());
    }

    /** Sends a signal to the process group, e.g. "INT". */
    void signalGroup(String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, "--", "-" + pid()).inheritIO().start().waitFor();
    }

    boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Kills the whole group, even when its leader is gone (orphaned members may remain). */
    void killGroup() throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-KILL", "--", "-" + pid()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        killGroup();
    }
}

package io.hbmledger.evidence.msprof;

import java.io.Console;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * The threads that read msprof files (one per core, daemon) and the progress bar: shown on
 * stderr only when stderr is a terminal and the work has run for more than
 * {@link #SHOW_AFTER}, so scripts, tests and quick reads see nothing.
 */
final class MsprofExecutor implements AutoCloseable {

    static final Duration SHOW_AFTER = Duration.ofMillis(1500);

    private final ExecutorService executor;
    private final int parallelism;

    private MsprofExecutor(int threads) {
        this.parallelism = threads;
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "msprof-reader");
            t.setDaemon(true);
            return t;
        });
    }

    static MsprofExecutor create() {
        return new MsprofExecutor(Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    ExecutorService executor() {
        return executor;
    }

    int parallelism() {
        return parallelism;
    }

    @FunctionalInterface
    interface Work<T> {
        T run(AtomicLong progress) throws java.io.IOException, io.hbmledger.evidence.EvidenceException;
    }

    /** Runs work that reports bytes done into the counter, with a delayed bar for {@code totalBytes}. */
    <T> T withProgress(long totalBytes, String label, Work<T> work)
            throws java.io.IOException, io.hbmledger.evidence.EvidenceException {
        AtomicLong done = new AtomicLong();
        Console console = System.console();
        if (console == null || "true".equals(System.getenv("CI"))) {
            return work.run(done);
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "msprof-progress");
            t.setDaemon(true);
            return t;
        });
        AtomicReference<ProgressBar> bar = new AtomicReference<>();
        long start = System.nanoTime();
        ScheduledFuture<?> tick = timer.scheduleAtFixedRate(() -> {
            if (bar.get() == null && System.nanoTime() - start > SHOW_AFTER.toNanos()) {
                bar.set(new ProgressBarBuilder().setTaskName("reading " + shortName(label))
                        .setInitialMax(Math.max(1, totalBytes >> 20)).setUnit(" MiB", 1)
                        .setStyle(ProgressBarStyle.ASCII).setConsumer(
                                new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err))
                        .continuousUpdate().build());
            }
            ProgressBar b = bar.get();
            if (b != null) {
                b.stepTo(done.get() >> 20);
            }
        }, 200, 200, TimeUnit.MILLISECONDS);
        try {
            return work.run(done);
        } finally {
            tick.cancel(false);
            timer.shutdownNow();
            ProgressBar b = bar.get();
            if (b != null) {
                b.stepTo(done.get() >> 20);
                b.close();
            }
        }
    }

    private static String shortName(String label) {
        int slash = label.lastIndexOf('/');
        return slash >= 0 ? label.substring(slash + 1) : label;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}

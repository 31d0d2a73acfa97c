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

    /**
     * Inputs from this size on hold the readers after the first back ({@link #holdBack}): the
     * launcher's threshold for keeping the optimising compiler (smaller inputs run on C1 alone).
     */
    static final long HOLD_FROM_BYTES = 64L << 20;
    /** The first reader's bytes, or the time, after which the others start. */
    static final long HOLD_BYTES = 32L << 20;
    static final long HOLD_NANOS = 100_000_000L;

    private final ExecutorService executor;
    private final int parallelism;
    /** The bytes read so far while a large input's readers are held back, else null. */
    private volatile AtomicLong holding;
    private volatile long holdingSince;

    private MsprofExecutor(int threads) {
        this.parallelism = threads;
        java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            boolean later = made.getAndIncrement() > 0;
            Thread t = new Thread(later ? () -> {
                holdBack();
                r.run();
            } : r, "msprof-reader");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Keeps a reader other than the first from starting until the first has read
     * {@link #HOLD_BYTES} or {@link #HOLD_NANOS} have passed. At the start of a large read the hot
     * loop runs interpreted, then in C1's profiling code, until C2 has compiled it; with every
     * core reading, the C2 compile took 45-60 ms instead of ~15 and both readers crawled
     * meanwhile. One reader leaves a core to the compilers, and the bytes it reads measure how far
     * the warm-up is (a slower machine reads and compiles more slowly alike). 1 GiB export, 40
     * paired runs each, a fixed 50 ms: wall -13 ms, CPU -32 ms; 80 ms: no better (issue 17).
     */
    private void holdBack() {
        AtomicLong read = holding;
        if (read == null) {
            return;
        }
        while (read.get() < HOLD_BYTES && System.nanoTime() - holdingSince < HOLD_NANOS) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
    }

    static MsprofExecutor create() {
        return withThreads(Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    static MsprofExecutor withThreads(int threads) {
        return new MsprofExecutor(threads);
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
        if (totalBytes >= HOLD_FROM_BYTES) {
            holdingSince = System.nanoTime();
            holding = done;
        }
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

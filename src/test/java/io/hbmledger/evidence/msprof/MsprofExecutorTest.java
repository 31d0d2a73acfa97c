package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The readers after the first wait for its first bytes on a large input only (issue 17). */
class MsprofExecutorTest {

    @Test
    void onALargeInputTheSecondReaderStartsAfterTheFirstHasRead32MiB() throws Exception {
        try (MsprofExecutor ex = MsprofExecutor.withThreads(2)) {
            AtomicLong reported = new AtomicLong();
            AtomicLong secondStarted = new AtomicLong();
            ex.withProgress(1L << 30, "test", progress -> {
                Future<?> first = ex.executor().submit(() -> {
                    sleep(40);
                    progress.addAndGet(16L << 20); // not enough yet
                    sleep(20);
                    reported.set(System.nanoTime());
                    progress.addAndGet(16L << 20);
                });
                Future<?> second = ex.executor().submit(() -> secondStarted.set(System.nanoTime()));
                done(first);
                done(second);
                return null;
            });
            assertThat(secondStarted.get()).isGreaterThanOrEqualTo(reported.get());
        }
    }

    @Test
    void aFirstReaderThatReportsNothingHoldsTheOthersBackFor100MsAtMost() throws Exception {
        try (MsprofExecutor ex = MsprofExecutor.withThreads(2)) {
            CountDownLatch secondRan = new CountDownLatch(1);
            long[] waited = new long[1];
            ex.withProgress(1L << 30, "test", progress -> {
                long start = System.nanoTime();
                // it reads nothing until the second has run: the second must not wait for it
                Future<?> first = ex.executor().submit(readsNothingUntil(secondRan));
                done(ex.executor().submit(() -> {
                    waited[0] = System.nanoTime() - start;
                    secondRan.countDown();
                }));
                done(first);
                return null;
            });
            assertThat(waited[0]).isBetween(MsprofExecutor.HOLD_NANOS - 5_000_000L, TimeUnit.SECONDS.toNanos(5));
        }
    }

    @Test
    void onASmallInputNoReaderWaits() throws Exception {
        try (MsprofExecutor ex = MsprofExecutor.withThreads(2)) {
            CountDownLatch secondRan = new CountDownLatch(1);
            ex.withProgress(MsprofExecutor.HOLD_FROM_BYTES - 1, "test", progress -> {
                long start = System.nanoTime();
                Future<?> first = ex.executor().submit(readsNothingUntil(secondRan));
                done(ex.executor().submit(secondRan::countDown));
                assertThat(System.nanoTime() - start).isLessThan(MsprofExecutor.HOLD_NANOS / 2);
                done(first);
                return null;
            });
        }
    }

    /** A first reader that reports no byte until {@code other} has run. */
    private static Runnable readsNothingUntil(CountDownLatch other) {
        return () -> {
            try {
                assertThat(other.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        };
    }

    private static void done(Future<?> f) {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}

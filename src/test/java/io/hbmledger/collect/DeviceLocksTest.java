package io.hbmledger.collect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Device locks under the interrupt path, where two threads clean up at once. */
class DeviceLocksTest {

    @TempDir
    Path state;

    /**
     * On SIGINT during phase stop, the interrupt thread and the collection thread both closed the
     * locks; unsynchronised, the second iteration threw ConcurrentModificationException and cut the
     * interrupt message short (seen in CollectInterruptTest on a fresh-clone CI run). Racing two
     * closes many times must neither throw nor leave a device locked.
     */
    @Test
    void twoThreadsClosingAtOnceReleaseEveryLockWithoutError() throws Exception {
        List<Integer> devices = IntStream.range(0, 16).boxed().toList();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        for (int round = 0; round < 200; round++) {
            DeviceLocks locks = DeviceLocks.acquire(state, "local", devices, "round " + round);
            CyclicBarrier start = new CyclicBarrier(2);
            Runnable close = () -> {
                try {
                    start.await();
                    locks.close();
                } catch (Throwable t) {
                    errors.add(t);
                }
            };
            Thread a = new Thread(close);
            Thread b = new Thread(close);
            a.start();
            b.start();
            a.join();
            b.join();
        }
        assertThat(errors).isEmpty();
        // every device can be locked again: nothing was left held
        try (DeviceLocks again = DeviceLocks.acquire(state, "local", devices, "after")) {
            assertThat(again).isNotNull();
        }
    }
}

package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimStateStoreTest {

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killStarted() {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    @Test
    void idleHostHasTheCorpusBaselines() throws Exception {
        SimStateStore store = new SimStateStore(dir);
        SimState s = store.init(SimStateStore.idleHost(8, "910B1", 65536));
        // 312 table: NPU 0 idles at 3437 MB, NPU 7 at 3380 MB.
        assertThat(s.usedBytes(0)).isEqualTo(3437 * SimState.MIB);
        assertThat(s.usedBytes(7)).isEqualTo(3380 * SimState.MIB);
        // 65536 - 3104 MiB = 62432 MiB = 65464696832 bytes, torch_npu's total in the 2667 log (to 0.1 %).
        assertThat(s.runtimeTotalBytes()).isEqualTo(62432 * SimState.MIB);
        assertThat(store.read()).isEqualTo(s);
    }

    @Test
    void concurrentAllocationsFromManyThreadsAreAllKept() throws Exception {
        SimStateStore store = new SimStateStore(dir, pid -> true);
        store.init(SimStateStore.idleHost(2, "910B1", 65536));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            int n = i;
            // each thread uses its own store object, as separate processes would
            done.add(pool.submit(() -> new SimStateStore(dir, pid -> true)
                    .allocate(n % 2, new SimState.Allocation(1000 + n, "t", "hold", SimState.MIB))));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        SimState s = store.read();
        // 100 allocations of 1 MiB on each NPU on top of the idle baselines 3437 and 3378 MiB
        assertThat(s.usedBytes(0)).isEqualTo((3437 + 100) * SimState.MIB);
        assertThat(s.usedBytes(1)).isEqualTo((3378 + 100) * SimState.MIB);
    }

    @Test
    void concurrentProcessesSeeConsistentState() throws Exception {
        SimStateStore store = new SimStateStore(dir);
        store.init(SimStateStore.idleHost(1, "910B1", 65536));
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        List<Process> holders = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Process p = new ProcessBuilder(java, "-cp", cp, SimHostCli.class.getName(), "--sim-home",
                    dir.toString(), "hold", "--device", "0", "--mib", String.valueOf(1000 * (i + 1)))
                    .redirectErrorStream(true).start();
            started.add(p);
            holders.add(p);
        }
        for (Process p : holders) {
            // "hbm-sim: pid N holds M MiB ..." once the allocation is stored
            String line = new String(p.getInputStream().readNBytes(12));
            assertThat(line).startsWith("hbm-sim: pid");
        }
        // 3437 idle + 1000 + 2000 + 3000 MiB
        assertThat(store.read().usedBytes(0)).isEqualTo((3437 + 6000) * SimState.MIB);
        holders.get(1).destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        // the killed holder's 2000 MiB is released when observed dead, like a driver on exit
        assertThat(store.read().usedBytes(0)).isEqualTo((3437 + 4000) * SimState.MIB);
    }

    @Test
    void deadPidsMemoryIsReleasedWhenObserved() throws Exception {
        SimStateStore store = new SimStateStore(dir);
        store.init(SimStateStore.idleHost(2, "910B1", 65536));
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        started.add(sleeper);
        store.allocate(1, new SimState.Allocation(sleeper.pid(), "sleep", "hold", 512 * SimState.MIB));
        assertThat(store.read().device(1).bytesOf(sleeper.pid())).isEqualTo(512 * SimState.MIB);
        sleeper.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        SimState after = store.read();
        assertThat(after.device(1).allocations()).isEmpty();
        assertThat(after.usedBytes(1)).isEqualTo(3378 * SimState.MIB);
    }

    @Test
    void aReusedPidDoesNotKeepTheDeadOwnersMemory() throws Exception {
        SimStateStore store = new SimStateStore(dir);
        store.init(SimStateStore.idleHost(1, "910B1", 65536));
        long me = ProcessHandle.current().pid();
        // same pid as a live process (this JVM) but a different start time: the owner is gone
        store.allocate(0, new SimState.Allocation(me, "old", "hold", SimState.MIB, 1_000L));
        store.allocate(0, SimState.Allocation.own("me", "hold", 2 * SimState.MIB));
        SimState s = store.read();
        assertThat(s.device(0).allocations()).extracting(SimState.Allocation::processName).containsExactly("me");
        assertThat(s.usedBytes(0)).isEqualTo((3437 + 2) * SimState.MIB);
    }

    @Test
    void allocationBeyondFreeMemoryFailsAndChangesNothing() throws Exception {
        SimStateStore store = new SimStateStore(dir, pid -> true);
        store.init(SimStateStore.idleHost(1, "910B1", 65536));
        // free = 65536 - 3437 = 62099 MiB
        store.allocate(0, new SimState.Allocation(7, "a", "weights", 62099 * SimState.MIB));
        assertThatThrownBy(() -> store.allocate(0, new SimState.Allocation(7, "a", "kv_cache", 1)))
                .isInstanceOf(SimStateStore.SimOutOfMemory.class);
        assertThat(store.read().usedBytes(0)).isEqualTo(65536 * SimState.MIB);
    }

    @Test
    void missingStateDirectoryIsAClearError() {
        assertThatThrownBy(() -> SimStateStore.locate(dir.resolve("nothing").toString()))
                .isInstanceOf(SimException.class)
                .hasMessageContaining("hbm-sim init");
    }
}

package io.hbmledger.sim;

import io.hbmledger.run.AtomicFile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * SIMULATOR: the simulated device state in a directory, shared by every simulated process.
 *
 * <p>{@code state.json} is only read and written while holding an exclusive
 * {@link FileChannel#lock() file lock} on {@code state.lock}, and it is replaced atomically
 * (temporary file, fsync, atomic rename), so concurrent npu-smi, vLLM and msprof stand-ins see
 * a consistent state. Like a real driver releasing memory when a process exits, every access
 * drops the allocations of pids that are no longer alive.
 */
public final class SimStateStore {

    /** Environment variable naming the state directory. */
    public static final String HOME_ENV = "HBM_SIM_HOME";

    static final String STATE_FILE = "state.json";
    static final String LOCK_FILE = "state.lock";

    // A FileChannel lock is held per JVM, not per thread: two threads (or two stores on the same
    // directory in one test JVM) would get OverlappingFileLockException. So threads of one JVM
    // queue on an in-process lock first. Keyed by the real path; entries are never removed
    // (a handful of directories per JVM).
    private static final Map<Path, ReentrantLock> IN_PROCESS_LOCKS = new ConcurrentHashMap<>();

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path home;
    private final Predicate<SimState.Allocation> alive;

    /**
     * @param home  the state directory
     * @param alive tells whether a pid is alive; allocations of dead pids are released
     */
    public SimStateStore(Path home, LongPredicate alive) {
        this.home = home.toAbsolutePath().normalize();
        this.alive = a -> alive.test(a.pid());
    }

    /** A store whose liveness check asks the operating system (pid alive and, when known, same start time). */
    public SimStateStore(Path home) {
        this.home = home.toAbsolutePath().normalize();
        this.alive = SimStateStore::osAlive;
    }

    /**
     * The store named by {@code --sim-home} (if given) or {@code $HBM_SIM_HOME}.
     *
     * @throws SimException (exit 2) when neither names an initialised directory
     */
    public static SimStateStore locate(String simHomeArg) {
        String dir = simHomeArg != null ? simHomeArg : System.getenv(HOME_ENV);
        if (dir == null || dir.isBlank()) {
            throw new SimException("this is a SIMULATOR and needs its state directory: set "
                    + HOME_ENV + " (or pass --sim-home DIR), then run 'sim/bin/hbm-sim init'", 2);
        }
        Path home = Path.of(dir);
        if (!Files.isRegularFile(home.resolve(STATE_FILE))) {
            throw new SimException("no simulated host state at " + home.resolve(STATE_FILE)
                    + "; create it with: HBM_SIM_HOME=" + dir + " sim/bin/hbm-sim init", 2);
        }
        return new SimStateStore(home);
    }

    public Path home() {
        return home;
    }

    /** True when the owning process is alive: its pid exists and, when recorded, started at the same time. */
    static boolean osAlive(SimState.Allocation a) {
        return ProcessHandle.of(a.pid()).filter(ProcessHandle::isAlive)
                .map(h -> a.pidStartMs() == 0 || Math.abs(startMillis(h) - a.pidStartMs()) < 2000)
                .orElse(false);
    }

    /** Start time of a process in epoch milliseconds, 0 when the OS does not tell. */
    static long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }

    /** Writes a fresh state (all devices idle), replacing any earlier one. */
    public SimState init(SimState fresh) throws IOException {
        Files.createDirectories(home);
        return locked(ignored -> fresh, true);
    }

    /** The current state, after releasing the memory of dead pids. */
    public SimState read() throws IOException {
        return locked(s -> s, false);
    }

    /** Applies {@code change} to the current state under the lock and stores the result. */
    public SimState update(UnaryOperator<SimState> change) throws IOException {
        return locked(change, false);
    }

    /** Adds one allocation; fails (leaving the state unchanged) when the device has no room. */
    public SimState allocate(int device, SimState.Allocation a) throws IOException {
        return update(s -> {
            long free = s.freeBytes(device);
            if (a.bytes() > free) {
                throw new SimOutOfMemory(device, a.bytes(), s);
            }
            return s.withDevice(s.device(device).plus(a));
        });
    }

    /** Releases what {@code pid} holds under {@code tag} on {@code device}. */
    public SimState release(int device, long pid, String tag) throws IOException {
        return update(s -> s.withDevice(s.device(device).minus(pid, tag)));
    }

    /** Releases everything {@code pid} holds on every device. */
    public SimState releaseAll(long pid) throws IOException {
        return update(s -> s.withoutPid(pid));
    }

    private SimState locked(UnaryOperator<SimState> change, boolean fresh) throws IOException {
        ReentrantLock inProcess = IN_PROCESS_LOCKS.computeIfAbsent(home, p -> new ReentrantLock());
        inProcess.lock();
        try (FileChannel ch = FileChannel.open(home.resolve(LOCK_FILE),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = ch.lock()) {
            SimState before = fresh ? null : load();
            SimState current = before == null ? null : before.withoutDead(alive);
            SimState after = change.apply(current);
            if (fresh || !after.equals(before)) {
                store(after);
            }
            return after;
        } finally {
            inProcess.unlock();
        }
    }

    private SimState load() throws IOException {
        Path f = home.resolve(STATE_FILE);
        if (!Files.isRegularFile(f)) {
            throw new SimException("no simulated host state at " + f
                    + "; create it with 'sim/bin/hbm-sim init'", 2);
        }
        try {
            return JSON.readValue(f.toFile(), SimState.class);
        } catch (IOException e) {
            throw new SimException("simulated host state " + f + " is unreadable: "
                    + e.getMessage() + "; re-create it with 'sim/bin/hbm-sim init'", 2, e);
        }
    }

    private void store(SimState s) throws IOException {
        AtomicFile.write(home.resolve(STATE_FILE), JSON.writeValueAsBytes(s));
    }

    /**
     * A fresh, idle simulated host.
     *
     * @param npus        number of NPUs
     * @param chipName    e.g. 910B1
     * @param capacityMib HBM per NPU in MiB (65536 for a 64 GiB 910B)
     */
    public static SimState idleHost(int npus, String chipName, long capacityMib) {
        // Idle HBM usage and bus ids of the 8 x 910B1 host in the corpus
        // (npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt); more NPUs repeat them.
        long[] idleMib = {3437, 3378, 3376, 3377, 3377, 3376, 3377, 3380};
        String[] bus = {"C1", "01", "C2", "02", "81", "41", "82", "42"};
        List<SimState.SimDevice> devices = new ArrayList<>();
        for (int i = 0; i < npus; i++) {
            String busId = String.format("0000:%s:00.0", i < bus.length ? bus[i]
                    : String.format("%02X", 0x10 + i));
            long baseline = Math.min(idleMib[i % idleMib.length], capacityMib / 2);
            devices.add(new SimState.SimDevice(i, busId, baseline, List.of()));
        }
        // 3104 MiB: 64 GiB minus the 65464696832-byte total torch_npu reported in the 2667 log.
        long reserved = Math.round(capacityMib * (3104.0 / 65536.0));
        return new SimState(1, chipName, "24.1.0", capacityMib, reserved, devices);
    }

    /** The chip name of a simulated GPU host; {@link SimState#gpu()} tells the hosts apart by it. */
    public static final String GPU_CHIP = "NVIDIA H100 80GB HBM3";

    /**
     * An idle simulated NVIDIA host: H100 80GB boards with the memory total (81559 MiB), idle usage
     * (0 MiB), bus ids (18, 2A) and driver (580.105.08) of the corpus table
     * {@code nvidia-smi/vllm-55169_H100_580_driver_2gpu_partial.txt}; more GPUs get made-up bus ids.
     * The driver's reserve (memory.reserved, not in used nor in CUDA's total) is the simulator's figure.
     */
    public static SimState idleGpuHost(int gpus) {
        String[] bus = {"18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"};
        List<SimState.SimDevice> devices = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            String b = i < bus.length ? bus[i] : String.format("%02X", 0xE0 + i);
            devices.add(new SimState.SimDevice(i, "0000:" + b + ":00.0", 0, List.of()));
        }
        return new SimState(1, GPU_CHIP, "580.105.08", 81559, 469, devices);
    }

    /** Thrown by {@link #allocate} when the device is full, with the figures torch_npu would print. */
    public static final class SimOutOfMemory extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int device;
        private final long requested;
        private final long free;
        private final long total;

        SimOutOfMemory(int device, long requested, SimState s) {
            super("simulated NPU " + device + " out of memory: requested " + requested
                    + " bytes, free " + s.freeBytes(device));
            this.device = device;
            this.requested = requested;
            this.free = s.freeBytes(device);
            this.total = s.runtimeTotalBytes();
        }

        public int device() {
            return device;
        }

        public long requested() {
            return requested;
        }

        public long free() {
            return free;
        }

        public long total() {
            return total;
        }
    }
}

package io.hbmledger.sim;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * SIMULATOR: samples the simulated devices for msprof's hardware-memory collection and appends
 * the samples to raw data files under {@code PROF_x/device_N/data/}, flushed after every sample
 * so that a killed collection keeps what it took.
 *
 * <p>Raw format (the simulator's own text, not msprof's binary): one line per value,
 * {@code nanos,KIND,NAME,bytes}, KIND {@code npu_mem} (NAME APP or Device) or {@code module}
 * (NAME a component). APP is what the profiled application's processes hold on the device;
 * Device is the device's whole usage. Components: APP = the application's torch memory (weights,
 * KV cache, graph pool, activations) plus GE; RUNTIME, HCCL and GE from the application's
 * allocations of those kinds; a few driver modules with fixed simulated sizes (part of the idle
 * baseline); every other component 0.
 */
final class MsprofSampler implements AutoCloseable {

    /** Driver-module sizes the simulator reports (simulated values; LP and ROS as in the corpus CRLF file). */
    static final Map<String, Long> DRIVER_MODULES = Map.of(
            "SLOG", 4096L * 1024, "DRV", 65536L * 1024, "DEVMM", 32768L * 1024, "TS", 16384L * 1024,
            "AICPU", 8192L * 1024, "LP", 80108L * 1024, "ROS", 11048L * 1024);

    static final String RAW_HEADER = "# SIMULATED msprof raw data (hbm-ledger simulator): nanos,kind,name,bytes";

    private final SimStateStore store;
    private final List<Integer> devices;
    private final ProcessHandle app;
    private final Map<Integer, BufferedWriter> writers = new HashMap<>();

    MsprofSampler(SimStateStore store, List<Integer> devices, ProcessHandle app, Path prof) throws IOException {
        this.store = store;
        this.devices = devices;
        this.app = app;
        for (int d : devices) {
            Path dataDir = prof.resolve("device_" + d).resolve("data");
            Files.createDirectories(dataDir);
            BufferedWriter w = Files.newBufferedWriter(dataDir.resolve("hbm_sim.data.0.slice_0"), StandardCharsets.UTF_8);
            w.write(RAW_HEADER);
            w.newLine();
            w.flush();
            writers.put(d, w);
        }
    }

    /** Takes one sample of every device and appends it. */
    synchronized void sample() throws IOException {
        Set<Long> pids = new HashSet<>();
        pids.add(app.pid());
        app.descendants().forEach(h -> pids.add(h.pid()));
        SimState s = store.read();
        java.time.Instant t = java.time.Instant.now();
        long now = t.getEpochSecond() * 1_000_000_000L + t.getNano();
        for (int d : devices) {
            SimState.SimDevice dev = s.device(d);
            Map<String, Long> comp = new HashMap<>();
            long appBytes = 0;
            for (SimState.Allocation a : dev.allocations()) {
                if (!pids.contains(a.pid())) {
                    continue;
                }
                appBytes += a.bytes();
                String c = switch (a.tag()) {
                    case "runtime" -> "RUNTIME";
                    case "hccl" -> "HCCL";
                    default -> "APP";
                };
                comp.merge(c, a.bytes(), Long::sum);
                if (a.tag().equals("ge")) {
                    comp.merge("GE", a.bytes(), Long::sum); // GE sits inside APP, as in real exports
                }
            }
            BufferedWriter w = writers.get(d);
            w.write(now + ",npu_mem,APP," + appBytes);
            w.newLine();
            w.write(now + ",npu_mem,Device," + dev.usedBytes());
            w.newLine();
            for (String c : MsprofFormat.COMPONENTS) {
                long v = comp.getOrDefault(c, DRIVER_MODULES.getOrDefault(c, 0L));
                w.write(now + ",module," + c + "," + v);
                w.newLine();
            }
            w.flush();
        }
    }

    @Override
    public synchronized void close() throws IOException {
        for (BufferedWriter w : writers.values()) {
            w.close();
        }
        writers.clear();
    }
}

package io.hbmledger.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * SIMULATOR: {@code hbm-sim}, the administration command of the simulated Ascend host.
 *
 * <pre>
 * hbm-sim init [--npus 8] [--chip 910B1] [--hbm-mib 65536] [--force]   create an idle host
 * hbm-sim init --gpus N [--force]                                      an idle NVIDIA host (H100 80GB)
 * hbm-sim status                                                        print state.json
 * hbm-sim hold --device D --mib M [--name NAME] [--seconds S]           hold memory as another process
 * </pre>
 * {@code hold} keeps the memory until it is killed or S seconds pass: a stand-in for "another
 * process on the same NPU" and for a device that is not idle.
 */
public final class SimHostCli {

    private SimHostCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    public static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        String simHome = NpuSmiSim.takeOption(args, "--sim-home");
        String home = simHome != null ? simHome : env.get(SimStateStore.HOME_ENV);
        try {
            if (args.isEmpty() || args.contains("-h") || args.contains("--help")) {
                out.print(usage());
                return args.isEmpty() ? 2 : 0;
            }
            String verb = args.remove(0);
            switch (verb) {
                case "init":
                    return init(args, home, out);
                case "status":
                    SimStateStore store = SimStateStore.locate(home);
                    store.read();
                    out.print(Files.readString(store.home().resolve(SimStateStore.STATE_FILE)));
                    out.println();
                    return 0;
                case "hold":
                    return hold(args, home, out);
                case "warmup":
                    return warmup();
                default:
                    err.println("hbm-sim (SIMULATOR): unknown command '" + verb + "'");
                    err.print(usage());
                    return 2;
            }
        } catch (SimException e) {
            err.println("hbm-sim (SIMULATOR): " + e.getMessage());
            return e.exitCode();
        } catch (SimStateStore.SimOutOfMemory e) {
            err.println("hbm-sim (SIMULATOR): " + e.getMessage());
            return 1;
        } catch (IOException | IllegalArgumentException e) {
            err.println("hbm-sim (SIMULATOR): " + e.getMessage());
            return 2;
        }
    }

    private static int init(List<String> args, String home, PrintStream out) throws IOException {
        if (home == null || home.isBlank()) {
            throw new SimException("set " + SimStateStore.HOME_ENV + " or pass --sim-home DIR", 2);
        }
        String gpus = NpuSmiSim.takeOption(args, "--gpus");
        int npus = Integer.parseInt(orDefault(gpus != null ? gpus : NpuSmiSim.takeOption(args, "--npus"), "8"));
        String chip = orDefault(NpuSmiSim.takeOption(args, "--chip"), "910B1");
        long hbm = Long.parseLong(orDefault(NpuSmiSim.takeOption(args, "--hbm-mib"), "65536"));
        boolean force = args.remove("--force");
        if (!args.isEmpty()) {
            throw new SimException("unexpected arguments to init: " + args, 2);
        }
        if (npus < 1 || npus > 64 || hbm < 1024) {
            throw new SimException("init needs 1..64 NPUs and at least 1024 MiB each", 2);
        }
        SimStateStore store = new SimStateStore(Path.of(home));
        if (Files.isRegularFile(store.home().resolve(SimStateStore.STATE_FILE)) && !force) {
            SimState current = store.read();
            for (SimState.SimDevice d : current.devices()) {
                if (!d.allocations().isEmpty()) {
                    throw new SimException("simulated NPU " + d.id() + " is in use by pid "
                            + d.allocations().get(0).pid() + "; stop it or pass --force", 2);
                }
            }
        }
        SimState s = store.init(gpus != null ? SimStateStore.idleGpuHost(npus) : SimStateStore.idleHost(npus, chip, hbm));
        out.println("hbm-sim: SIMULATED " + (s.gpu() ? "NVIDIA" : "Ascend") + " host ready at " + store.home() + ": "
                + s.devices().size() + " x " + s.chipName() + ", " + s.capacityMib() + " MiB HBM each");
        return 0;
    }

    private static int hold(List<String> args, String home, PrintStream out) throws IOException {
        int device = Integer.parseInt(required(NpuSmiSim.takeOption(args, "--device"), "--device"));
        long mib = Long.parseLong(required(NpuSmiSim.takeOption(args, "--mib"), "--mib"));
        String name = orDefault(NpuSmiSim.takeOption(args, "--name"), "hold-sim");
        long seconds = Long.parseLong(orDefault(NpuSmiSim.takeOption(args, "--seconds"), "0"));
        SimStateStore store = SimStateStore.locate(home);
        long pid = ProcessHandle.current().pid();
        store.allocate(device, SimState.Allocation.own(name, "hold", mib * SimState.MIB));
        out.println("hbm-sim: pid " + pid + " holds " + mib + " MiB on simulated NPU " + device
                + (seconds > 0 ? " for " + seconds + " s" : " until killed"));
        out.flush();
        long deadline = seconds > 0 ? System.nanoTime() + seconds * 1_000_000_000L : Long.MAX_VALUE;
        try {
            while (System.nanoTime() < deadline) {
                Thread.sleep(Math.min(1000, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        store.release(device, pid, "hold");
        return 0;
    }

    /**
     * Loads the classes the stand-ins use (JSON state round trip, npu-smi rendering) without any
     * state directory; the launcher records them in a class-data archive so later starts are faster.
     */
    private static int warmup() throws IOException {
        Path tmp = Files.createTempDirectory("hbm-sim-warmup");
        try {
            SimStateStore store = new SimStateStore(tmp);
            store.init(SimStateStore.idleHost(8, "910B1", 65536));
            store.allocate(0, SimState.Allocation.own("warmup", "hold", SimState.MIB));
            SimState s = store.releaseAll(ProcessHandle.current().pid());
            NpuSmiFormat.info(s);
            NpuSmiFormat.usages(s, 0);
            MsprofFormat.npuMemRow(0, "APP", 0, 0);
        } finally {
            try (var files = Files.list(tmp)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(tmp);
        }
        return 0;
    }

    private static String orDefault(String v, String d) {
        return v == null ? d : v;
    }

    private static String required(String v, String name) {
        if (v == null) {
            throw new SimException("hold needs " + name, 2);
        }
        return v;
    }

    static String usage() {
        return """
                hbm-sim: administration of the SIMULATED Ascend host used by the npu-smi, vllm and msprof stand-ins.
                State directory: $HBM_SIM_HOME or --sim-home DIR.
                  hbm-sim init [--npus 8] [--chip 910B1] [--hbm-mib 65536] [--force]
                  hbm-sim init --gpus N [--force]      a simulated NVIDIA host (H100 80GB) for sim/bin/nvidia-smi
                  hbm-sim status
                  hbm-sim hold --device D --mib M [--name NAME] [--seconds S]
                """;
    }
}

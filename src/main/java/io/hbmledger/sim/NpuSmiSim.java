package io.hbmledger.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * SIMULATOR: an {@code npu-smi} stand-in that prints the simulated host's state in real npu-smi
 * layouts (see {@link NpuSmiFormat}). Launched by {@code sim/bin/npu-smi}.
 *
 * <p>Supported: {@code npu-smi info} and {@code npu-smi info -t usages -i ID}. Options of its own:
 * {@code --sim-home DIR} (default {@code $HBM_SIM_HOME}). Faults for tests, by environment:
 * {@code HBM_SIM_NPU_SMI_HANG=1} never answers (for timeout handling),
 * {@code HBM_SIM_NPU_SMI_FAIL=1} prints a driver error and exits 1.
 */
public final class NpuSmiSim {

    private NpuSmiSim() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /** Runs one npu-smi command; returns its exit code. */
    public static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        String simHome = takeOption(args, "--sim-home");
        try {
            if (args.isEmpty() || args.contains("-h") || args.contains("--help")) {
                out.print(usage());
                return args.isEmpty() ? 2 : 0;
            }
            if ("1".equals(env.get("HBM_SIM_NPU_SMI_HANG"))) {
                hang();
            }
            if ("1".equals(env.get("HBM_SIM_NPU_SMI_FAIL"))) {
                err.println("dcmi module initialize failed. ret is -8005 (SIMULATED fault: HBM_SIM_NPU_SMI_FAIL=1)");
                return 1;
            }
            if (!args.get(0).equals("info")) {
                err.println("npu-smi (SIMULATOR): unsupported command '" + String.join(" ", args)
                        + "'; supported: info, info -t usages -i ID");
                return 2;
            }
            args.remove(0);
            SimStateStore store = simHome != null ? SimStateStore.locate(simHome)
                    : SimStateStore.locate(env.get(SimStateStore.HOME_ENV));
            SimState state = store.read();
            if (args.isEmpty()) {
                out.print(NpuSmiFormat.info(state));
                return 0;
            }
            String type = takeOption(args, "-t");
            String id = takeOption(args, "-i");
            if ("usages".equals(type) && id != null && args.isEmpty()) {
                int npu;
                try {
                    npu = Integer.parseInt(id);
                    state.device(npu);
                } catch (IllegalArgumentException e) {
                    err.println("npu-smi (SIMULATOR): invalid NPU id '" + id + "': " + e.getMessage());
                    return 2;
                }
                out.print(NpuSmiFormat.usages(state, npu));
                return 0;
            }
            err.println("npu-smi (SIMULATOR): unsupported arguments 'info " + String.join(" ", args)
                    + (type != null ? " -t " + type : "") + (id != null ? " -i " + id : "")
                    + "'; supported: info, info -t usages -i ID");
            return 2;
        } catch (SimException e) {
            err.println("npu-smi (SIMULATOR): " + e.getMessage());
            return e.exitCode();
        } catch (IOException e) {
            err.println("npu-smi (SIMULATOR): cannot read the simulated state: " + e);
            return 1;
        }
    }

    static String usage() {
        return """
                npu-smi SIMULATOR (hbm-ledger): prints a simulated Ascend host's state in real npu-smi layouts.
                No NPU is queried. State directory: $HBM_SIM_HOME or --sim-home DIR.
                Usage:
                  npu-smi info                      device table and process table
                  npu-smi info -t usages -i ID      usage figures of NPU ID
                Faults for tests: HBM_SIM_NPU_SMI_HANG=1 (never answers), HBM_SIM_NPU_SMI_FAIL=1 (driver error).
                """;
    }

    /** Removes {@code name VALUE} or {@code name=VALUE} from args and returns VALUE (or null). */
    static String takeOption(List<String> args, String name) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals(name) && i + 1 < args.size()) {
                args.remove(i);
                return args.remove(i);
            }
            if (a.startsWith(name + "=")) {
                args.remove(i);
                return a.substring(name.length() + 1);
            }
        }
        return null;
    }

    private static void hang() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

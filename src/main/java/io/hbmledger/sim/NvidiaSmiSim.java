package io.hbmledger.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SIMULATOR: an {@code nvidia-smi} stand-in that prints a simulated GPU host (made with
 * {@code hbm-sim init --gpus N}) in nvidia-smi's layouts (see {@link NvidiaSmiFormat}). Launched by
 * {@code sim/bin/nvidia-smi}.
 *
 * <p>Supported: {@code nvidia-smi} (the table), {@code -q [-d MEMORY]},
 * {@code --query-gpu=FIELDS} and {@code --query-compute-apps=FIELDS} with
 * {@code --format=csv[,noheader][,nounits]}, and the loops {@code -l SEC} / {@code -lms MS}
 * (until SIGINT or SIGTERM, the header once, as nvidia-smi does). Faults for tests:
 * {@code HBM_SIM_NVIDIA_SMI_HANG=1} never answers, {@code HBM_SIM_NVIDIA_SMI_FAIL=1} prints
 * nvidia-smi's driver error and exits 9.
 */
public final class NvidiaSmiSim {

    private static final DateTimeFormatter TABLE_DATE = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", Locale.ROOT);
    private static final DateTimeFormatter CSV_DATE = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS", Locale.ROOT);

    private NvidiaSmiSim() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /** Runs one nvidia-smi command; returns its exit code. */
    public static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        String simHome = NpuSmiSim.takeOption(args, "--sim-home");
        try {
            if (args.contains("-h") || args.contains("--help")) {
                out.print(usage());
                return 0;
            }
            if ("1".equals(env.get("HBM_SIM_NVIDIA_SMI_HANG"))) {
                sleep(Long.MAX_VALUE);
            }
            if ("1".equals(env.get("HBM_SIM_NVIDIA_SMI_FAIL"))) {
                out.println("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest"
                        + " NVIDIA driver is installed and running. (SIMULATED fault: HBM_SIM_NVIDIA_SMI_FAIL=1)");
                return 9;
            }
            SimStateStore store = SimStateStore.locate(simHome != null ? simHome : env.get(SimStateStore.HOME_ENV));
            String gpuFields = NpuSmiSim.takeOption(args, "--query-gpu");
            String appFields = NpuSmiSim.takeOption(args, "--query-compute-apps");
            String format = NpuSmiSim.takeOption(args, "--format");
            String loopS = NpuSmiSim.takeOption(args, "-l");
            String loopMs = NpuSmiSim.takeOption(args, "-lms");
            boolean q = args.remove("-q") | args.remove("--query");
            String display = NpuSmiSim.takeOption(args, "-d");
            if (!args.isEmpty() || display != null && !display.equalsIgnoreCase("MEMORY")) {
                err.println("nvidia-smi (SIMULATOR): unsupported arguments " + args + (display != null ? " -d " + display : "")
                        + "; supported: (none), -q [-d MEMORY], --query-gpu=F, --query-compute-apps=F, --format=csv[,noheader][,nounits], -l S, -lms MS");
                return 2;
            }
            long every = loopMs != null ? Long.parseLong(loopMs) : loopS != null ? Long.parseLong(loopS) * 1000 : 0;
            List<String> opts = format == null ? List.of() : Arrays.asList(format.split(","));
            if ((gpuFields != null || appFields != null) && !opts.contains("csv")) {
                err.println("nvidia-smi (SIMULATOR): --format=csv is required with --query-gpu / --query-compute-apps");
                return 2;
            }
            boolean header = !opts.contains("noheader");
            boolean units = !opts.contains("nounits");
            boolean first = true;
            do {
                SimState s = store.read();
                LocalDateTime now = LocalDateTime.now();
                if (gpuFields != null) {
                    out.print(NvidiaSmiFormat.queryGpu(s, fields(gpuFields), header && first, units, now.format(CSV_DATE)));
                } else if (appFields != null) {
                    out.print(NvidiaSmiFormat.queryApps(s, fields(appFields), header && first, units));
                } else if (q) {
                    out.print(NvidiaSmiFormat.query(s, now.format(TABLE_DATE)));
                } else {
                    out.print(NvidiaSmiFormat.table(s, now.format(TABLE_DATE)));
                }
                out.flush();
                first = false;
                if (every > 0) {
                    sleep(every);
                }
            } while (every > 0 && !out.checkError());
            return 0;
        } catch (SimException e) {
            // nvidia-smi prints its field errors on stdout
            out.println(e.getMessage());
            return e.exitCode();
        } catch (NumberFormatException e) {
            err.println("nvidia-smi (SIMULATOR): -l / -lms expect a whole number, found " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("nvidia-smi (SIMULATOR): cannot read the simulated state: " + e);
            return 1;
        }
    }

    private static List<String> fields(String list) {
        return Arrays.stream(list.split(",")).map(String::strip).toList();
    }

    static String usage() {
        return """
                nvidia-smi SIMULATOR (hbm-ledger): prints a simulated GPU host in nvidia-smi's layouts.
                No GPU is queried. State directory: $HBM_SIM_HOME or --sim-home DIR (hbm-sim init --gpus N).
                Usage:
                  nvidia-smi                                     the GPU and process tables
                  nvidia-smi -q [-d MEMORY]                      FB memory usage per GPU
                  nvidia-smi --query-gpu=index,uuid,pci.bus_id,memory.used,memory.total,memory.reserved --format=csv[,noheader][,nounits]
                  nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv[,noheader][,nounits]
                  ... -l SEC | -lms MS                           repeat until interrupted
                Faults for tests: HBM_SIM_NVIDIA_SMI_HANG=1 (never answers), HBM_SIM_NVIDIA_SMI_FAIL=1 (driver error).
                """;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.hbmledger.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SIMULATOR: prints a simulated GPU host in nvidia-smi's layouts. The table is copied in shape
 * from the corpus file {@code nvidia-smi/vllm-55169_H100_580_driver_2gpu_partial.txt} (driver
 * 580, 91 columns), its process table in the same driver's layout; the CSV follows
 * {@code --query-gpu} / {@code --query-compute-apps} with {@code --format=csv[,noheader][,nounits]}
 * (header {@code memory.used [MiB]}, values {@code 103 MiB}, as in
 * {@code nvidia-smi/query-gpu-csv_2gpu_index_used_total.csv}). MiB means 2^20 bytes.
 */
final class NvidiaSmiFormat {

    private static final String RULE = "+-----------------------------------------+------------------------+----------------------+";

    private NvidiaSmiFormat() {
    }

    static String table(SimState s, String date) {
        StringBuilder b = new StringBuilder();
        b.append(date).append("       \n");
        b.append("+-----------------------------------------------------------------------------------------+\n");
        b.append(String.format(Locale.ROOT, "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|%n",
                s.npuSmiVersion(), s.npuSmiVersion(), "13.0"));
        b.append(RULE).append('\n');
        b.append("| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n");
        b.append("| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n");
        b.append("|                                         |                        |               MIG M. |\n");
        b.append("|=========================================+========================+======================|\n");
        for (SimState.SimDevice d : s.devices()) {
            b.append(String.format(Locale.ROOT, "| %3d  %-28s  On  |   %s Off |                    0 |%n",
                    d.id(), s.chipName(), busId(d)));
            String mem = String.format(Locale.ROOT, "%dMiB / %dMiB", usedMib(d), s.capacityMib());
            b.append(String.format(Locale.ROOT, "| N/A   %2dC    P0            %3dW /  700W | %22s |      %s      Default |%n",
                    24 + d.id(), d.allocations().isEmpty() ? 99 : 312, mem, d.allocations().isEmpty() ? " 0%" : "38%"));
            b.append("|                                         |                        |             Disabled |\n");
            b.append(RULE).append('\n');
        }
        b.append('\n');
        b.append("+-----------------------------------------------------------------------------------------+\n");
        b.append("| Processes:                                                                              |\n");
        b.append("|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n");
        b.append("|        ID   ID                                                               Usage      |\n");
        b.append("|=========================================================================================|\n");
        boolean any = false;
        for (SimState.SimDevice d : s.devices()) {
            for (Map.Entry<Long, String> p : processes(d).entrySet()) {
                any = true;
                b.append(String.format(Locale.ROOT, "|  %3d   N/A  N/A  %15d      C   %-32s %9s |%n", d.id(), p.getKey(),
                        clip(p.getValue(), 32), (d.bytesOf(p.getKey()) >> 20) + "MiB"));
            }
        }
        if (!any) {
            b.append("|  No running processes found                                                             |\n");
        }
        b.append("+-----------------------------------------------------------------------------------------+\n");
        return b.toString();
    }

    /** {@code nvidia-smi -q -d MEMORY}: the FB memory section of each GPU. */
    static String query(SimState s, String date) {
        StringBuilder b = new StringBuilder("\n==============NVSMI LOG==============\n\n");
        b.append("Timestamp                                 : ").append(date).append('\n');
        b.append("Driver Version                            : ").append(s.npuSmiVersion()).append('\n');
        b.append("CUDA Version                              : 13.0\n\n");
        b.append("Attached GPUs                             : ").append(s.devices().size()).append('\n');
        for (SimState.SimDevice d : s.devices()) {
            long used = usedMib(d);
            b.append("GPU ").append(busId(d)).append('\n');
            b.append("    FB Memory Usage\n");
            b.append("        Total                             : ").append(s.capacityMib()).append(" MiB\n");
            b.append("        Reserved                          : ").append(s.runtimeReservedMib()).append(" MiB\n");
            b.append("        Used                              : ").append(used).append(" MiB\n");
            b.append("        Free                              : ").append(s.capacityMib() - s.runtimeReservedMib() - used).append(" MiB\n");
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * {@code --query-gpu=FIELDS}: one row per GPU.
     *
     * @throws SimException for a field the simulator does not know, with nvidia-smi's wording
     */
    static String queryGpu(SimState s, List<String> fields, boolean header, boolean units, String timestamp) {
        List<List<String>> rows = new ArrayList<>();
        for (SimState.SimDevice d : s.devices()) {
            List<String> row = new ArrayList<>();
            for (String f : fields) {
                row.add(switch (f) {
                    case "timestamp" -> timestamp;
                    case "index" -> Integer.toString(d.id());
                    case "name" -> s.chipName();
                    case "uuid" -> uuid(d.id());
                    case "pci.bus_id" -> busId(d);
                    case "driver_version" -> s.npuSmiVersion();
                    case "memory.used" -> mib(usedMib(d), units);
                    case "memory.total" -> mib(s.capacityMib(), units);
                    case "memory.reserved" -> mib(s.runtimeReservedMib(), units);
                    case "memory.free" -> mib(s.capacityMib() - s.runtimeReservedMib() - usedMib(d), units);
                    default -> throw new SimException("Field \"" + f + "\" is not a valid field to query.", 2);
                });
            }
            rows.add(row);
        }
        return csv(fields, header, units, rows);
    }

    /** {@code --query-compute-apps=FIELDS}: one row per process and GPU; nothing but the header when idle. */
    static String queryApps(SimState s, List<String> fields, boolean header, boolean units) {
        List<List<String>> rows = new ArrayList<>();
        for (SimState.SimDevice d : s.devices()) {
            for (Map.Entry<Long, String> p : processes(d).entrySet()) {
                List<String> row = new ArrayList<>();
                for (String f : fields) {
                    row.add(switch (f) {
                        case "gpu_uuid" -> uuid(d.id());
                        case "gpu_bus_id" -> busId(d);
                        case "gpu_name" -> s.chipName();
                        case "pid" -> Long.toString(p.getKey());
                        case "process_name", "name" -> p.getValue();
                        case "used_memory", "used_gpu_memory" -> mib(d.bytesOf(p.getKey()) >> 20, units);
                        default -> throw new SimException("Field \"" + f + "\" is not a valid field to query.", 2);
                    });
                }
                rows.add(row);
            }
        }
        return csv(fields.stream().map(f -> f.equals("used_memory") ? "used_gpu_memory" : f).toList(), header, units, rows);
    }

    /** A simulated but stable GPU UUID (the real ones are random per board). */
    static String uuid(int id) {
        return String.format(Locale.ROOT, "GPU-5137a4c2-0d1e-4f6b-9c3a-%012x", 0x51a0000L + id);
    }

    private static String csv(List<String> fields, boolean header, boolean units, List<List<String>> rows) {
        StringBuilder b = new StringBuilder();
        if (header) {
            List<String> names = new ArrayList<>();
            for (String f : fields) {
                boolean memory = f.startsWith("memory.") || f.equals("used_gpu_memory");
                names.add(memory ? f + " [MiB]" : f);
            }
            b.append(String.join(", ", names)).append('\n');
        }
        for (List<String> r : rows) {
            b.append(String.join(", ", r)).append('\n');
        }
        return b.toString();
    }

    private static String mib(long n, boolean units) {
        return units ? n + " MiB" : Long.toString(n);
    }

    private static long usedMib(SimState.SimDevice d) {
        return d.usedBytes() >> 20;
    }

    private static String busId(SimState.SimDevice d) {
        // nvidia-smi prints an 8-digit PCI domain: 00000000:18:00.0
        return d.busId().length() == 12 ? "0000" + d.busId() : d.busId();
    }

    private static Map<Long, String> processes(SimState.SimDevice d) {
        Map<Long, String> out = new LinkedHashMap<>();
        for (SimState.Allocation a : d.allocations()) {
            out.putIfAbsent(a.pid(), a.processName());
        }
        return out;
    }

    private static String clip(String s, int n) {
        return s.length() <= n ? s : "..." + s.substring(s.length() - n + 3);
    }
}

package io.hbmledger.sim;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * SIMULATOR: renders a {@link SimState} as {@code npu-smi} prints it. Pure: state in, text out.
 *
 * <p>Layouts copied character for character from real npu-smi 24.1 output in the corpus:
 * {@code npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt} (910B table with a process
 * table) and {@code npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt} (the
 * "No running processes found in NPU n" rows). The "NPU:" and "CANN:" blocks around those tables
 * come from the issue template that pasted them, not from npu-smi, and are not printed.
 * {@code info -t usages} follows {@code npu-smi/hiascend-doc_atlas200IA2_info_t_usages_i0.txt}
 * (a tab-free, 8-space indented key/value list); for a 910B the HBM lines are added after the
 * memory lines (assumption: the Atlas 200I A2 has DDR only, so its sample cannot show them).
 * "MB" in every header is MiB.
 */
public final class NpuSmiFormat {

    private static final String LINE_TOP = "+" + "-".repeat(96) + "+";
    private static final String LINE_COLS = "+" + "-".repeat(27) + "+" + "-".repeat(15) + "+" + "-".repeat(52) + "+";
    private static final String LINE_DOUBLE = "+" + "=".repeat(27) + "+" + "=".repeat(15) + "+" + "=".repeat(52) + "+";

    private NpuSmiFormat() {
    }

    /** The {@code npu-smi info} table, with the process table, ending in a newline. */
    public static String info(SimState s) {
        StringBuilder out = new StringBuilder();
        out.append(LINE_TOP).append('\n');
        out.append(String.format(Locale.ROOT, "| %-33s%-62s|%n", "npu-smi " + s.npuSmiVersion(),
                "Version: " + s.npuSmiVersion()));
        out.append(LINE_COLS).append('\n');
        out.append("| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n");
        out.append("| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n");
        out.append(LINE_DOUBLE).append('\n');
        for (SimState.SimDevice d : s.devices()) {
            boolean busy = hasTag(d, "activation");
            out.append(String.format(Locale.ROOT, "| %-6s%-20s| %-14s| %-12s%-18s%-5s/ %-14s|%n",
                    d.id(), s.chipName(), "OK", power(d, busy), temperature(d, busy), "0", "0"));
            out.append(String.format(Locale.ROOT, "| %-26s| %-14s| %-12s%-5s/ %-11s%-5s/ %-14s|%n",
                    "0", d.busId(), busy ? "38" : "0", "0", "0",
                    d.usedBytes() / SimState.MIB, s.capacityMib()));
            out.append(LINE_DOUBLE).append('\n');
        }
        out.append(LINE_COLS).append('\n');
        out.append("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |\n");
        out.append(LINE_DOUBLE).append('\n');
        for (SimState.SimDevice d : s.devices()) {
            Map<Long, String> names = new LinkedHashMap<>();
            Map<Long, Long> bytes = new LinkedHashMap<>();
            for (SimState.Allocation a : d.allocations()) {
                names.putIfAbsent(a.pid(), a.processName());
                bytes.merge(a.pid(), a.bytes(), Long::sum);
            }
            if (names.isEmpty()) {
                out.append(String.format(Locale.ROOT, "| %-95s|%n", "No running processes found in NPU " + d.id()));
            } else {
                for (Map.Entry<Long, String> e : names.entrySet()) {
                    out.append(String.format(Locale.ROOT, "| %-8s%-18s| %-14s| %-25s| %-24s|%n",
                            d.id(), "0", e.getKey(), truncate(e.getValue(), 24),
                            bytes.get(e.getKey()) / SimState.MIB));
                }
            }
            out.append(LINE_DOUBLE).append('\n');
        }
        return out.toString();
    }

    /** {@code npu-smi info -t usages -i ID}, ending in a newline. */
    public static String usages(SimState s, int id) {
        SimState.SimDevice d = s.device(id);
        boolean busy = hasTag(d, "activation");
        long usedMib = d.usedBytes() / SimState.MIB;
        long ratePct = Math.round(100.0 * usedMib / s.capacityMib());
        StringBuilder out = new StringBuilder();
        kv(out, "NPU ID", String.valueOf(id));
        kv(out, "Chip Count", "1");
        out.append('\n');
        kv(out, "Chip ID", "0");
        kv(out, "Memory Capacity(MB)", "15171");
        kv(out, "Memory Usage Rate(%)", "3");
        kv(out, "Hugepages Total(page)", "0");
        kv(out, "Hugepages Usage Rate(%)", "0");
        kv(out, "HBM Capacity(MB)", String.valueOf(s.capacityMib()));
        kv(out, "HBM Usage Rate(%)", String.valueOf(ratePct));
        kv(out, "Aicore Usage Rate(%)", busy ? "38" : "0");
        kv(out, "Aicpu Usage Rate(%)", "0");
        kv(out, "Ctrlcpu Usage Rate(%)", "1");
        kv(out, "Memory Bandwidth Usage Rate(%)", "0");
        kv(out, "HBM Bandwidth Usage Rate(%)", busy ? "21" : "0");
        return out.toString();
    }

    private static void kv(StringBuilder out, String key, String value) {
        // "        Memory Bandwidth Usage Rate(%) : 0": 8 spaces, key padded to 31, ": ", value
        out.append(String.format(Locale.ROOT, "        %-31s: %s%n", key, value));
    }

    private static boolean hasTag(SimState.SimDevice d, String tag) {
        for (SimState.Allocation a : d.allocations()) {
            if (a.tag().startsWith(tag)) {
                return true;
            }
        }
        return false;
    }

    private static String power(SimState.SimDevice d, boolean busy) {
        // idle 910B1 power in the corpus is 89.1-93.0 W; under load the 910B2C table shows 86-104 W
        double w = 89.1 + 0.5 * (d.id() % 8) + (d.allocations().isEmpty() ? 0 : 4.0) + (busy ? 9.0 : 0);
        return String.format(Locale.ROOT, "%.1f", w);
    }

    private static String temperature(SimState.SimDevice d, boolean busy) {
        return String.valueOf(31 + d.id() % 3 + (busy ? 4 : 0));
    }

    private static String truncate(String s, int max) {
        String v = s == null ? "" : s;
        return v.length() <= max ? v : v.substring(0, max);
    }
}

package io.hbmledger.collect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Just enough of the {@code npu-smi info} table to tell which devices have processes on them: the
 * process section ("NPU Chip | Process id | Process name | Process memory(MB)") and, when the chip
 * rows show a Phy-ID column (Atlas A3), the chip-to-logical-device map. Layout followed: npu-smi
 * 24.1 tables in the corpus (vllm-ascend-264, -312, -2667). The full reader lives in evidence.npusmi.
 */
public final class NpuSmiTable {

    /** One process row: NPU id, chip id, logical device id, pid, name, memory in MB as printed. */
    public record DeviceProcess(int npu, int chip, int device, long pid, String name, long memoryMb) {
    }

    private static final Pattern NAME_ROW = Pattern.compile("^\\|\\s*(\\d+)\\s+\\S.*?\\|\\s*\\S+\\s*\\|");
    private static final Pattern CHIP_ROW =
            Pattern.compile("^\\|\\s*(\\d+)\\s+(\\d+)?\\s*\\|\\s*[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:");
    private static final Pattern PROCESS_ROW =
            Pattern.compile("^\\|\\s*(\\d+)\\s+(\\d+)\\s*\\|\\s*(\\d+)\\s*\\|\\s*(.*?)\\s*\\|\\s*(\\d+)\\s*\\|");

    private NpuSmiTable() {
    }

    /** The process rows of an {@code npu-smi info} output; empty when it shows "No running processes". */
    public static List<DeviceProcess> processes(String text) {
        boolean phyIds = false;
        boolean inProcesses = false;
        Integer npu = null;
        Map<String, Integer> phy = new HashMap<>();
        List<DeviceProcess> out = new ArrayList<>();
        for (String raw : text.split("\\R")) {
            String line = raw.stripTrailing();
            if (line.contains("Phy-ID")) {
                phyIds = true;
            }
            if (line.contains("Process id") && line.contains("Process name")) {
                inProcesses = true;
                continue;
            }
            if (!inProcesses) {
                Matcher chip = CHIP_ROW.matcher(line);
                if (chip.find() && npu != null) {
                    if (phyIds && chip.group(2) != null) {
                        phy.put(npu + "/" + chip.group(1), Integer.parseInt(chip.group(2)));
                    }
                    continue;
                }
                Matcher name = NAME_ROW.matcher(line);
                if (name.find()) {
                    npu = Integer.parseInt(name.group(1));
                }
                continue;
            }
            Matcher p = PROCESS_ROW.matcher(line);
            if (p.find()) {
                int n = Integer.parseInt(p.group(1));
                int c = Integer.parseInt(p.group(2));
                int device = phy.getOrDefault(n + "/" + c, n);
                out.add(new DeviceProcess(n, c, device, Long.parseLong(p.group(3)), p.group(4),
                        Long.parseLong(p.group(5))));
            }
        }
        return out;
    }
}

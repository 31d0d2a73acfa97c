package io.hbmledger.plan;

import static io.hbmledger.ledger.Units.GIB;
import static io.hbmledger.ledger.Units.MIB;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Device capacities by name, each with where it comes from. Ascend figures are npu-smi readings
 * in this project's corpus (../shared/corpus, ../shared/cases); the total torch sees is given only
 * where a vLLM log of that device model printed it. NVIDIA capacities are the datasheet sizes
 * (80 GB = 80 GiB of HBM, as nvidia-smi's MiB total shows for A100) except H100, read from a corpus
 * nvidia-smi table; where no log shows the framework's total, the planner uses the capacity and
 * says that this overstates the budget by the driver's reserve.
 */
public final class DeviceCatalog {

    private static final Map<String, DeviceSpec> SPECS = specs();

    private DeviceCatalog() {
    }

    private static Map<String, DeviceSpec> specs() {
        Map<String, DeviceSpec> m = new LinkedHashMap<>();
        String b2Torch = "60.96 GiB: vLLM's 'Free memory on device (27.18/60.96 GiB)' on a 910B2 (cases/ascend-8621, vllm-ascend #8621)";
        String npu64 = "npu-smi HBM-Usage(MB) total 65536";
        add(m, new DeviceSpec("910B1", 65536 * MIB, npu64 + " (corpus npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt)",
                null, "not seen in a 910B1 log; " + b2Torch + " is the same 64 GB HBM", true));
        add(m, new DeviceSpec("910B2", 65536 * MIB, npu64 + " (cases/ascend-8621 npu-smi.txt, corpus npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt)",
                Math.round(60.96 * GIB), b2Torch, true));
        add(m, new DeviceSpec("910B3", 65536 * MIB, npu64 + " (64 GB HBM, as 910B1/B2; no 910B3 table in the corpus)",
                null, "not seen in a 910B3 log; " + b2Torch + " is the same 64 GB HBM", true));
        add(m, new DeviceSpec("910B4", 32768 * MIB, "npu-smi HBM-Usage(MB) total 32768 (cases/ascend-8809-910b4-32gb npu-smi.txt)",
                30196 * MIB, "29.49 GiB (30196 MiB) in a 910B4 vLLM log on another host (cases/ascend-8809 case.md)", true));
        add(m, new DeviceSpec("910A3", 65536 * MIB, npu64 + " per chip (corpus npu-smi/vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt)",
                65464696832L, "65464696832 B: vllm-ascend 'Available memory: 34184553369, total memory: 65464696832' on an Atlas A3"
                        + " (examples/a3-llama3.1-8b-eagle3/evidence/vllm-startup.log:47)", true));
        add(m, new DeviceSpec("310P", 44278 * MIB, "npu-smi Memory-Usage(MB) total 44278 per 310P3 chip of an Atlas 300I Duo"
                + " (corpus npu-smi/vllm-ascend-6842_310P3_duo_4cards_8chips_big_npu_ids.txt; the card's other chip shows 43693)",
                null, "not seen in a 310P log", true));
        add(m, new DeviceSpec("H20", 96 * GIB, "NVIDIA H20 datasheet: 96 GB HBM3", null, "not seen in an H20 log", false));
        add(m, new DeviceSpec("H100", 81559 * MIB, "nvidia-smi 0MiB / 81559MiB (corpus nvidia-smi/vllm-55169_H100_580_driver_2gpu_partial.txt)",
                Math.round(79.22 * GIB), "79.22 GiB: 'total_gpu_memory 79.22GiB' on an 80 GB GPU (corpus vllm-log/vllm-pr10511)", false));
        add(m, new DeviceSpec("H200", 141 * GIB, "NVIDIA H200 datasheet: 141 GB HBM3e", null, "not seen in an H200 log", false));
        add(m, new DeviceSpec("A100", 80 * GIB, "NVIDIA A100 80GB datasheet (nvidia-smi shows 81920MiB)", null, "not seen in an A100 log", false));
        add(m, new DeviceSpec("L40S", 48 * GIB, "NVIDIA L40S datasheet: 48 GB GDDR6", null, "not seen in an L40S log", false));
        add(m, new DeviceSpec("RTX4090", 24 * GIB, "NVIDIA GeForce RTX 4090: 24 GB GDDR6X", null, "not seen in an RTX 4090 log", false));
        add(m, new DeviceSpec("RTX5090", 32 * GIB, "NVIDIA GeForce RTX 5090: 32 GB GDDR7", null, "not seen in an RTX 5090 log", false));
        return m;
    }

    private static void add(Map<String, DeviceSpec> m, DeviceSpec s) {
        m.put(key(s.name()), s);
    }

    /** Spaces, dashes and case do not matter: "910 A3", "910a3", "A3", "RTX 4090", "h100". */
    private static String key(String name) {
        String k = name.toUpperCase(Locale.ROOT).replaceAll("[\\s_-]", "");
        return switch (k) {
            case "A3", "ATLASA3", "910C" -> "910A3";
            case "310P3" -> "310P";
            case "4090" -> "RTX4090";
            case "5090" -> "RTX5090";
            default -> k.startsWith("910B2") ? "910B2" : k;
        };
    }

    public static Optional<DeviceSpec> byName(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(SPECS.get(key(name)));
    }

    public static List<String> names() {
        List<String> out = new ArrayList<>();
        SPECS.values().forEach(s -> out.add(s.name()));
        return out;
    }
}

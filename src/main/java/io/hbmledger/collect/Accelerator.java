package io.hbmledger.collect;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The serving host's accelerator: which device tool a collection samples, which variable names the
 * devices the server may use, and whether msprof is there to profile it. Recorded in run.json as
 * {@code deployment.accelerator}.
 */
public enum Accelerator {
    /** Huawei Ascend NPUs: npu-smi, ASCEND_RT_VISIBLE_DEVICES, msprof. */
    ASCEND("ascend", "npu-smi"),
    /** NVIDIA GPUs: nvidia-smi, CUDA_VISIBLE_DEVICES in nvidia-smi's (PCI bus) order, no msprof. */
    NVIDIA("nvidia", "nvidia-smi");

    private final String id;
    private final String tool;

    Accelerator(String id, String tool) {
        this.id = id;
        this.tool = tool;
    }

    /** As written in run.json and on the command line: ascend or nvidia. */
    public String id() {
        return id;
    }

    /** The device tool's program name. */
    public String tool() {
        return tool;
    }

    /** True where msprof profiles the server (Ascend only). */
    public boolean profiles() {
        return this == ASCEND;
    }

    public DeviceSmi smi(Host host, Duration timeout) {
        return this == ASCEND ? new NpuSmi(host, timeout) : new NvidiaSmi(host, timeout);
    }

    /**
     * The environment that gives the server exactly these devices. On NVIDIA, CUDA numbers GPUs
     * fastest first unless told otherwise; PCI_BUS_ID makes CUDA's numbers nvidia-smi's, so that the
     * samples and the server speak of the same GPUs.
     */
    public Map<String, String> visibleDevices(List<Integer> devices) {
        String list = devices.stream().map(String::valueOf).collect(Collectors.joining(","));
        Map<String, String> env = new LinkedHashMap<>();
        if (this == ASCEND) {
            env.put("ASCEND_RT_VISIBLE_DEVICES", list);
        } else {
            env.put("CUDA_VISIBLE_DEVICES", list);
            env.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        }
        return env;
    }

    /**
     * {@code ascend} or {@code nvidia} as given to {@code --accelerator}.
     *
     * @throws ArgumentException for anything else
     */
    public static Accelerator parse(String s) {
        for (Accelerator a : values()) {
            if (a.id.equals(s.toLowerCase(Locale.ROOT))) {
                return a;
            }
        }
        throw new ArgumentException("--accelerator " + s + ": expected ascend or nvidia");
    }

    /**
     * What the host has: nvidia-smi without npu-smi means NVIDIA; otherwise Ascend (whose preflight
     * then says when npu-smi is missing too).
     */
    public static Accelerator detect(Host host) throws IOException {
        return !host.hasCommand("npu-smi") && host.hasCommand("nvidia-smi") ? NVIDIA : ASCEND;
    }
}

package io.hbmledger.ledger;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.vllmlog.DeviceType;
import java.util.Locale;

/**
 * Which accelerator the run's evidence describes, so the ledger speaks its terms: npu-smi, HCCL,
 * CANN and msprof on Ascend; nvidia-smi, NCCL, CUDA graphs and the CUDA context on NVIDIA GPUs.
 * Told from the evidence: an nvidia-smi sample or a "GPU"/"CUDA" device the vLLM log names
 * (out-of-memory and start-check lines) means NVIDIA; npu-smi, msprof or an "NPU" device means
 * Ascend; else the device type vLLM's lines print ({@code device_config=cuda} in the engine config,
 * "# cuda blocks"; {@code npu} under vllm-ascend); a log without any leaves it open.
 */
public final class Accelerator {

    public enum Kind { ASCEND, GPU, UNKNOWN }

    private Accelerator() {
    }

    public static Kind of(EvidenceSet ev) {
        if (ev.has(EvidenceFormat.Family.NVIDIA_SMI)) {
            return Kind.GPU;
        }
        if (ev.has(EvidenceFormat.Family.NPU_SMI) || ev.has(EvidenceFormat.Family.MSPROF)) {
            return Kind.ASCEND;
        }
        // a device the vLLM log names (an out-of-memory line, the start check's "cuda:0"); of a log
        // with servers of different models, the last model's, as the ledger lines' and the deployment's
        for (TaggedObservation t : ev.where(t -> t.isVllm() && t.o().context().device() != null && ev.vllmServers().kept(t))) {
            String dev = t.o().context().device() == null ? "" : t.o().context().device().toLowerCase(Locale.ROOT);
            if (dev.startsWith("gpu") || dev.startsWith("cuda")) {
                return Kind.GPU;
            }
            if (dev.startsWith("npu")) {
                return Kind.ASCEND;
            }
        }
        // the device type vLLM's own lines name (engine config device_config=cuda, "# cuda blocks")
        // of a log with servers of different models, the last model's, as the ledger lines' (EvidenceSet.vllm)
        for (TaggedObservation t : ev.vllm(Quantity.DEVICE_TYPE)) {
            Kind kind = DeviceType.of(t.o().text()).map(Accelerator::of).orElse(Kind.UNKNOWN);
            if (kind != Kind.UNKNOWN) {
                return kind;
            }
        }
        return Kind.UNKNOWN;
    }

    /** The accelerator a vLLM device type runs on; the types hbm-ledger has no ledger for are unknown. */
    static Kind of(DeviceType type) {
        return switch (type) {
            case CUDA, ROCM -> Kind.GPU;
            case NPU -> Kind.ASCEND;
            case XPU, HPU, TPU, CPU -> Kind.UNKNOWN;
        };
    }

    /**
     * A device's key when no device sample names it: the id the other tools use for a logical
     * device of the accelerator, {@code gpu:<index>} as nvidia-smi writes it and {@code npu:<id>}
     * as msprof and torch_npu write it (no {@code /chip:} part: without npu-smi nothing says which
     * chip of an NPU it is, and an Atlas A3 NPU has two); {@code device:<id>} when the accelerator
     * is unknown. The id is the deployment's (as ASCEND_RT_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES
     * list it), not torch's index inside the process ("NPU 0" of an out-of-memory line under
     * ASCEND_RT_VISIBLE_DEVICES=4 is npu:4 here), so that it names the device as the sample tools do.
     */
    public static String deviceKey(Kind kind, int logicalDevice) {
        return switch (kind) {
            case GPU -> "gpu:" + logicalDevice;
            case ASCEND -> "npu:" + logicalDevice;
            case UNKNOWN -> "device:" + logicalDevice;
        };
    }

    public static boolean gpu(EvidenceSet ev) {
        return of(ev) == Kind.GPU;
    }

    /** The device-sample tool's name. */
    public static String smiName(EvidenceSet ev) {
        return switch (of(ev)) {
            case GPU -> "nvidia-smi";
            case ASCEND -> "npu-smi";
            case UNKNOWN -> "npu-smi / nvidia-smi";
        };
    }

    /** What would measure collective buffers, runtime and the peak under load. */
    public static String profilerNeed(EvidenceSet ev) {
        return gpu(ev) ? "a GPU memory profile, which hbm-ledger does not read yet" : "msprof";
    }
}

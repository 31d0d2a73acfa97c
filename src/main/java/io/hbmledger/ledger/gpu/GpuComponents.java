package io.hbmledger.ledger.gpu;

import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.Entry;

/**
 * The NVIDIA counterparts of HCCL and the CANN runtime, named so a GPU ledger does not speak of
 * Ascend parts: NCCL's communication buffers and the CUDA context (driver, cuBLAS workspaces).
 * {@link GpuRuntimeRule} gives them figures where the evidence has them (NCCL's allocation lines,
 * the process table less vLLM's figures); this class only names what stays unknown. What the GPU evidence does measure
 * is the serving process's whole memory (nvidia-smi's per-process figure): when that is known, both
 * are inside it, so the residual (used - counted) holds them, measured, and the ledger is whole
 * without a line for each. Only without that figure are they unknown, and the note names the
 * nvidia-smi evidence that is missing, never msprof.
 */
public final class GpuComponents {

    static final String NCCL = Component.NCCL;
    static final String CUDA_RUNTIME = Component.CUDA_RUNTIME;

    private GpuComponents() {
    }

    /** {@link GpuRuntimeRule}'s unknown lines for NCCL and the CUDA context, where it decided none, unless the server's per-process memory is measured. */
    public static void unknownUnlessInServerProcesses(DeviceDraft d) {
        if (d.hasKnown(Component.SERVER_PROCESSES)) {
            return;
        }
        String why = "needs nvidia-smi's memory of the serving processes at this moment (--query-compute-apps, or the"
                + " Processes table), which holds it together with the vLLM components; vLLM counts part of it in non-torch";
        if (d.get(NCCL).isEmpty()) {
            d.decide(Entry.unknown(NCCL, "NCCL communication buffers: " + why));
        }
        if (d.get(CUDA_RUNTIME).isEmpty()) {
            d.decide(Entry.unknown(CUDA_RUNTIME, "CUDA context and library workspaces: " + why));
        }
    }
}

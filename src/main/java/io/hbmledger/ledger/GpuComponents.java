package io.hbmledger.ledger;

/**
 * The NVIDIA counterparts of HCCL and the CANN runtime, named so a GPU ledger does not speak of
 * Ascend parts: NCCL's communication buffers and the CUDA context (driver, cuBLAS workspaces).
 * No evidence that hbm-ledger reads measures them yet (vLLM counts both in non-torch memory), so
 * they are unknown, and the note says so rather than asking for msprof.
 */
final class GpuComponents {

    static final String NCCL = "nccl";
    static final String CUDA_RUNTIME = "cuda_runtime";

    private GpuComponents() {
    }

    static void unknown(DeviceDraft d) {
        String why = "no evidence for it that hbm-ledger reads yet (it would need a GPU memory profile);"
                + " vLLM counts it in non-torch";
        d.putIfAbsent(Entry.unknown(NCCL, "NCCL communication buffers: " + why));
        d.putIfAbsent(Entry.unknown(CUDA_RUNTIME, "CUDA context and library workspaces: " + why));
    }
}

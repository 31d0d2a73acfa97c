package io.hbmledger.ledger.msprof;

import io.hbmledger.ledger.Component;
import java.util.Set;

/**
 * How npu_module_mem components map to ledger lines. The components are CANN's log module ids
 * ({@code slog.h} module enum, CANN log reference "DlogRecord": SLOG, IDEDD, HCCL, FMK, DVPP,
 * RUNTIME, ..., APP = "User Application", GE = "Fmk", ASCENDCL). The CANN log reference sorts
 * them in two classes: application logs from the host-side AscendCL, GE, Runtime and HCCL in the
 * serving process, and system logs from the device's own components (driver, task scheduler,
 * low power, logging, ...). Following that:
 * <ul>
 *   <li>{@code hccl}: HCCL (communication buffers, 2 x HCCL_BUFFSIZE per communicator).</li>
 *   <li>{@code cann_runtime}: RUNTIME, ASCENDCL and GE (graph engine workspace), the CANN
 *       layers inside the serving process outside PyTorch's allocator.</li>
 *   <li>APP: the application's own allocations (torch_npu's caching allocator); not a line of
 *       its own, since vLLM's weights, KV cache and graph pool split it; it is checked against
 *       them.</li>
 *   <li>{@code other_modules}: everything else (SLOG, DRV, DEVMM, TS, AICPU, LP, ROS, HCCP, ...),
 *       each listed by name in the note.</li>
 * </ul>
 */
public final class MsprofModules {

    private MsprofModules() {
    }

    public static final String APP = "APP";
    public static final String GE = "GE";
    static final Set<String> HCCL = Set.of("HCCL");
    static final Set<String> CANN_RUNTIME = Set.of("RUNTIME", "ASCENDCL", GE);

    /** The ledger component of an npu_module_mem component, or null for APP. */
    static String componentOf(String module) {
        if (module == null || module.equals(APP)) {
            return null;
        }
        if (HCCL.contains(module)) {
            return Component.HCCL;
        }
        if (CANN_RUNTIME.contains(module)) {
            return Component.CANN_RUNTIME;
        }
        return Component.OTHER_MODULES;
    }
}

package io.hbmledger.sim;

import java.util.List;
import java.util.Locale;

/**
 * SIMULATOR: the CSV layouts of {@code msprof --export=on} in {@code mindstudio_profiler_output/}.
 * Pure formatting; the values are the simulator's.
 *
 * <p>Followed sources (MindStudio msprof analysis, {@code analysis/csrc/application/summary/}):
 * <ul>
 *   <li>{@code npu_mem_*.csv}: header {@code Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)}
 *       ({@code npu_memory_assembler.cpp}); event {@code APP} or {@code Device}
 *       ({@code NpuMemViewer}: type 0 APP, 1 Device); KB as integers (bytes / 1024); ddr 0 on
 *       Atlas A2 (documented as unsupported there); timestamp in microseconds with three decimals
 *       followed by a TAB.</li>
 *   <li>{@code npu_module_mem_*.csv}: {@code Device_id,Component,Timestamp(us),Total Reserved(KB),Device}
 *       ({@code npu_module_mem_assembler.cpp}), rows sorted by module then time; the TAB after the
 *       timestamp and {@code NPU:n} device cells as in the corpus file
 *       {@code msprof/msinsight_level1_rank0_npu_module_mem.csv}; component names and their order
 *       as in that file.</li>
 *   <li>{@code memory_record_*.csv}: {@code Device_id,Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Device}
 *       (msprof memory_record documentation: CANN's profiler records the GE component only).</li>
 * </ul>
 * File names: {@code NAME_yyyyMMddHHmmss.csv}, or {@code NAME_slice_N_yyyyMMddHHmmss.csv} when
 * sliced (the naming msprof's own tests expect for {@code op_summary_slice_0_...csv}).
 */
final class MsprofFormat {

    static final String NPU_MEM_HEADER = "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)";
    static final String NPU_MODULE_MEM_HEADER = "Device_id,Component,Timestamp(us),Total Reserved(KB),Device";
    static final String MEMORY_RECORD_HEADER = "Device_id,Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Device";

    /** npu_module_mem components in the order of the corpus export. */
    static final List<String> COMPONENTS = List.of(("SLOG IDEDD IDEDH HCCL FMK HIAIENGINE DVPP RUNTIME "
            + "CCE HDC DRV MDCFUSION MDCLOCATION MDCPERCEPTION MDCFSM MDCCOMMON MDCMONITOR MDCBSWP MDCDEFAULT "
            + "MDCSC MDCPNC MLL DEVMM KERNEL LIBMEDIA CCECPU ASCENDDK ROS HCCP ROCE TEFUSION PROFILING DP APP "
            + "TS TSDUMP AICPU LP TDT FE MD MB ME IMU IMP GE MDCFUSA CAMERA ASCENDCL TEEOS ISP SIS HSM DSS "
            + "PROCMGR BBOX AIVECTOR TBE FV MDCMAP TUNE HSS FFTS OP UDF HICAID TSYNC AUDIO TPRT ASCENDCKERNEL "
            + "ASYS ATRACE RTC SYSMONITOR AML ADETECT MBUFF").split(" "));

    private MsprofFormat() {
    }

    /** Microseconds with three decimals and msprof's trailing TAB, from nanoseconds since the epoch. */
    static String timestamp(long nanos) {
        return String.format(Locale.ROOT, "%d.%03d\t", nanos / 1000, nanos % 1000);
    }

    static String npuMemRow(int device, String event, long hbmBytes, long nanos) {
        long kb = hbmBytes / 1024;
        return device + "," + event + ",0," + kb + "," + kb + "," + timestamp(nanos);
    }

    static String moduleRow(int device, String component, long bytes, long nanos) {
        return device + "," + component + "," + timestamp(nanos) + "," + (bytes / 1024) + ",NPU:" + device;
    }

    static String memoryRecordRow(int device, long allocatedBytes, long reservedBytes, long nanos) {
        return device + ",GE," + timestamp(nanos) + "," + (allocatedBytes / 1024) + ","
                + (reservedBytes / 1024) + ",NPU:" + device;
    }
}

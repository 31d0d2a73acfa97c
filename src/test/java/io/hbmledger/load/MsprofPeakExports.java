package io.hbmledger.load;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Simulated msprof exports in msprof's own column layouts (npu_mem_*.csv, npu_module_mem_*.csv of
 * mindstudio_profiler_output, as in the corpus), each amount a whole number of MiB written in KB.
 * T0 = 2027-01-15T08:00:00Z; npu_mem samples at T0 + k x 100 ms (k = 0..9), npu_module_mem 2 ms
 * before each.
 * <pre>
 * k                  0..5    6      7      8      9
 * npu_mem Device     50000  51000  51600  50500  50000  MiB   peak at k = 7 (T0 + 700 ms)
 * npu_mem APP         2000   2900   3600   2500   2000  MiB
 * module APP          1500   2400   3000   2000   1500  MiB
 * module HCCL          400    400    400    400    400  MiB
 * module RUNTIME        90     90    190    190    190  MiB
 * module SLOG            4      4      4      4      4  MiB
 * </pre>
 * Export B is A with a start-up spike at k = 1: Device 53000, npu_mem APP 5000, module APP 4500 MiB.
 */
public final class MsprofPeakExports {

    /** 2027-01-15T08:00:00Z in microseconds since the Unix epoch. */
    public static final long T0 = 1_800_000_000_000_000L;

    private MsprofPeakExports() {
    }

    /** Export A (see the class comment). */
    public static Path exportA(Path dir) throws Exception {
        long[] device = {50000, 50000, 50000, 50000, 50000, 50000, 51000, 51600, 50500, 50000};
        long[] app = {2000, 2000, 2000, 2000, 2000, 2000, 2900, 3600, 2500, 2000};
        long[] modApp = {1500, 1500, 1500, 1500, 1500, 1500, 2400, 3000, 2000, 1500};
        long[] runtime = {90, 90, 90, 90, 90, 90, 90, 190, 190, 190};
        return export(dir, "PROF_000001_A", device, app, modApp, runtime);
    }

    /** Export B (see the class comment). */
    public static Path exportB(Path dir) throws Exception {
        long[] device = {50000, 53000, 50000, 50000, 50000, 50000, 51000, 51600, 50500, 50000};
        long[] app = {2000, 5000, 2000, 2000, 2000, 2000, 2900, 3600, 2500, 2000};
        long[] modApp = {1500, 4500, 1500, 1500, 1500, 1500, 2400, 3000, 2000, 1500};
        long[] runtime = {90, 90, 90, 90, 90, 90, 90, 190, 190, 190};
        return export(dir, "PROF_000001_B", device, app, modApp, runtime);
    }

    private static Path export(Path dir, String name, long[] device, long[] app, long[] modApp, long[] runtime) throws Exception {
        Path out = Files.createDirectories(dir.resolve(name).resolve("mindstudio_profiler_output"));
        StringBuilder mem = new StringBuilder("Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n");
        StringBuilder mod = new StringBuilder("Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n");
        for (int k = 0; k < device.length; k++) {
            long ts = T0 + k * 100_000L;
            mem.append("0,app,0,").append(app[k] * 1024).append(',').append(app[k] * 1024).append(',').append(ts).append(".000\t\n");
            mem.append("0,device,0,").append(device[k] * 1024).append(',').append(device[k] * 1024).append(',').append(ts).append(".000\t\n");
            String mts = (ts - 2_000L) + ".500\t";
            mod.append("0,APP,").append(mts).append(',').append(modApp[k] * 1024).append(",NPU:0\n");
            mod.append("0,HCCL,").append(mts).append(',').append(400 * 1024).append(",NPU:0\n");
            mod.append("0,RUNTIME,").append(mts).append(',').append(runtime[k] * 1024).append(",NPU:0\n");
            mod.append("0,SLOG,").append(mts).append(',').append(4 * 1024).append(",NPU:0\n");
        }
        Files.writeString(out.resolve("npu_mem_20270115080000.csv"), mem, StandardCharsets.US_ASCII);
        Files.writeString(out.resolve("npu_module_mem_20270115080000.csv"), mod, StandardCharsets.US_ASCII);
        return dir.resolve(name);
    }
}

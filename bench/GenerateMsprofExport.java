/*
 * Simulator of a large msprof export, for the benchmark (bench/run-benchmark). It writes the
 * column layouts of the real files (see ../shared/corpus/msprof and MsprofTable's Javadoc):
 *
 *   PROF_000001_<ts>_SIM/mindstudio_profiler_output/
 *     npu_module_mem_slice_N_<ts>.csv   Device_id,Component,Timestamp(us),Total Reserved(KB),Device
 *     npu_mem_slice_N_<ts>.csv          Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)
 *
 * with a TAB after every timestamp, as msprof writes it; 77 modules sampled at --hz on each of
 * --devices NPUs, rows grouped by device then module then time (the order of the real files),
 * files cut into slices of --slice-mb. Values are a made-up serving run (HCCL and RUNTIME flat,
 * APP rising at load and breathing under requests, most modules 0), seeded, so two runs with
 * the same arguments write the same bytes.
 *
 * Usage: java bench/GenerateMsprofExport.java --out DIR [--gigabytes 1] [--devices 16] [--hz 50]
 *        [--slice-mb 1024]
 * Runs until about --gigabytes of CSV are written (the duration follows from it).
 */
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

public class GenerateMsprofExport {

    static final String[] MODULES = ("SLOG IDEDD IDEDH HCCL FMK HIAIENGINE DVPP RUNTIME CCE HDC DRV MDCFUSION "
            + "MDCLOCATION MDCPERCEPTION MDCFSM MDCCOMMON MDCMONITOR MDCBSWP MDCDEFAULT MDCSC MDCPNC MLL DEVMM "
            + "KERNEL LIBMEDIA CCECPU ASCENDDK ROS HCCP ROCE TEFUSION PROFILING DP APP TS TSDUMP AICPU LP TDT FE MD "
            + "MB ME IMU IMP GE MDCFUSA CAMERA ASCENDCL TEEOS ISP SIS HSM DSS PROCMGR BBOX AIVECTOR TBE FV MDCMAP "
            + "TUNE HSS FFTS OP UDF HICAID TSYNC AUDIO TPRT ASCENDCKERNEL ASYS ATRACE RTC SYSMONITOR AML ADETECT "
            + "MBUFF").split(" ");

    public static void main(String[] args) throws IOException {
        Path out = null;
        double gigabytes = 1;
        int devices = 16;
        int hz = 50;
        long sliceMb = 1024;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--gigabytes" -> gigabytes = Double.parseDouble(args[++i]);
                case "--devices" -> devices = Integer.parseInt(args[++i]);
                case "--hz" -> hz = Integer.parseInt(args[++i]);
                case "--slice-mb" -> sliceMb = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("--out DIR is required");
        }
        long startUs = 1736408883657086L;
        Path dir = out.resolve("PROF_000001_20250109091803123_SIM/mindstudio_profiler_output");
        Files.createDirectories(dir);
        long target = (long) (gigabytes * (1L << 30));
        // npu_module_mem rows are ~41 bytes, npu_mem ~2 rows per device per sample at ~50 bytes
        double bytesPerSecond = devices * hz * (MODULES.length * 41.0 + 2 * 50.0);
        long samples = Math.max(2, (long) (target / bytesPerSecond * hz));
        long stepUs = 1_000_000L / hz;
        System.err.printf("simulated msprof export: %d devices x %d modules at %d Hz for %.1f s -> %s%n",
                devices, MODULES.length, hz, samples / (double) hz, dir);
        try (Sliced w = new Sliced(dir, "npu_module_mem", sliceMb << 20,
                "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n")) {
            for (int d = 0; d < devices; d++) {
                for (int m = 0; m < MODULES.length; m++) {
                    Random r = new Random(d * 1000L + m);
                    for (long s = 0; s < samples; s++) {
                        long ts = startUs + s * stepUs + r.nextInt(900);
                        long kb = moduleKb(MODULES[m], s, samples, r);
                        w.line(d + "," + MODULES[m] + "," + micros(ts) + "\t," + kb + (kb == 0 ? ".0" : "")
                                + ",NPU:" + d + "\n");
                    }
                }
            }
        }
        try (Sliced w = new Sliced(dir, "npu_mem", sliceMb << 20,
                "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n")) {
            for (int d = 0; d < devices; d++) {
                Random r = new Random(d);
                for (String event : new String[] {"app", "device"}) {
                    for (long s = 0; s < samples; s++) {
                        long app = moduleKb("APP", s, samples, r);
                        long hbm = event.equals("app") ? app : app + 2_800_000 + 413_760 + 94_448;
                        w.line(d + "," + event + ",0," + hbm + "," + hbm + "," + micros(startUs + s * stepUs) + "\t\n");
                    }
                }
            }
        }
    }

    static String micros(long us) {
        return us + "." + (us % 7 * 137 % 1000 + 1000 + "").substring(1);
    }

    static long moduleKb(String module, long s, long samples, Random r) {
        switch (module) {
            case "HCCL":
                return s < samples / 20 ? 0 : 413_760;
            case "RUNTIME":
                return 90_000 + (s * 8 / samples) * 512;
            case "GE":
                return 77_824;
            case "LP":
                return 84_332;
            case "APP":
                long load = Math.min(s, samples / 10) * 52_428_800L / Math.max(1, samples / 10);
                long breathing = s > samples / 10 ? (s % 500) * 2048 + r.nextInt(4096) : 0;
                return 1_486_848 + load + breathing;
            default:
                return 0;
        }
    }

    /** Writes lines into file_slice_0.csv, file_slice_1.csv ... of at most sliceBytes each. */
    static final class Sliced implements AutoCloseable {
        final Path dir;
        final String stem;
        final long sliceBytes;
        final byte[] header;
        OutputStream out;
        long written;
        int slice;

        Sliced(Path dir, String stem, long sliceBytes, String header) throws IOException {
            this.dir = dir;
            this.stem = stem;
            this.sliceBytes = sliceBytes;
            this.header = header.getBytes(StandardCharsets.US_ASCII);
            open();
        }

        void open() throws IOException {
            // msprof's naming for sliced summaries: NAME_slice_N_yyyyMMddHHmmss.csv
            out = new BufferedOutputStream(Files.newOutputStream(dir.resolve(stem + "_slice_" + slice + "_20250109091803.csv")),
                    1 << 20);
            out.write(header);
            written = header.length;
        }

        void line(String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.US_ASCII);
            if (written + b.length > sliceBytes) {
                out.close();
                slice++;
                open();
            }
            out.write(b);
            written += b.length;
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}

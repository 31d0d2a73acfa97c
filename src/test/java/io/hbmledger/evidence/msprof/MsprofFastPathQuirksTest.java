package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The SWAR fast path ({@link FusedLineParser}) against the general tokenizer on seeded,
 * generated files in every sampled layout, with every quirk of the real files and the edges
 * of the word-at-a-time parsing: TAB after timestamps, CRLF, quoted cells (with commas),
 * empty cells, -1, KB and MB headers, a cut-off last line, numbers of 0, 7, 8, 9 and 17+
 * digits, long fractions, group names of 7, 8, 9, 16 and 17 bytes, two-digit and host
 * devices. The files are larger than the 64 KiB read buffer, so lines also straddle refills.
 * Expected values are the general path's: the test checks that both paths agree, row by row
 * in effect (peaks with their rows and texts, sample counts, times, gaps, values at moments,
 * warnings).
 */
class MsprofFastPathQuirksTest {

    @TempDir
    Path dir;

    private static final String[] GROUPS = {"APP", "HCCL", "RUNTIME", "SLOG", "ASCENDCL", "ASCENDCKE",
        "ASCENDCKERNEL123", "ASCENDCKERNEL1234", "PTA+GE", "GE", "\"APP\"", "\"A,B\"", " APP", "A B"};

    private static String amount(Random r) {
        return switch (r.nextInt(24)) {
            case 0 -> "-1";
            case 1 -> "";
            case 2 -> " 12.5";
            case 3 -> "1e3";
            case 4 -> "abc";
            case 5 -> "54941608";
            case 6 -> "123456789";
            case 7 -> "0.123456789";
            case 8 -> "5.";
            case 9 -> ".";
            case 10 -> ".5";
            case 11 -> "12345678901234567890";
            case 12 -> "\"413760\"";
            case 13 -> "2109.6015625";
            case 14 -> "0.0";
            case 15 -> "0";
            default -> Integer.toString(r.nextInt(2_000_000)) + (r.nextBoolean() ? ".25" : "");
        };
    }

    private static String timestamp(Random r, long us) {
        return switch (r.nextInt(20)) {
            case 0 -> Long.toString(us % 100_000_000L); // 8 digits
            case 1 -> us + "7"; // 17 digits: not a timestamp
            case 2 -> us + ".123456789\t";
            case 3 -> us + ".";
            case 4 -> "\t" + us;
            case 5 -> us + ".5";
            case 6 -> "x" + us;
            case 7 -> us + ".1.2";
            case 8 -> Long.toString(us / 1000);
            default -> us + "." + (100 + r.nextInt(900)) + (r.nextBoolean() ? "\t" : "");
        };
    }

    private static String device(Random r, int dev) {
        return switch (r.nextInt(14)) {
            case 0 -> "host";
            case 1 -> "npu:" + dev;
            case 2 -> "";
            case 3 -> "NPU:" + (dev + 10);
            case 4 -> "NPU:1234567";
            default -> "NPU:" + dev;
        };
    }

    private int runDev;
    private String runGroup;
    private String runDevId;

    /** One generated row in the given layout; the columns follow the real headers. */
    private String row(String layout, Random r, int i) {
        // runs of rows of one series (as in real exports, and what the fast path's prefix lane
        // relies on) broken by a new device and group every 4 rows on average
        if (i == 0 || r.nextInt(4) == 0) {
            runDev = r.nextInt(3);
            runGroup = GROUPS[r.nextInt(GROUPS.length)];
            runDevId = r.nextInt(15) == 0 ? "x" : Integer.toString(runDev + (r.nextInt(8) == 0 ? 10 : 0));
        }
        int dev = runDev;
        long us = 1_736_408_883_657_086L + i * 20_000L;
        String group = runGroup;
        String devId = runDevId;
        return switch (layout) {
            case "module_kb" -> devId + "," + group + "," + timestamp(r, us) + "," + amount(r) + "," + device(r, dev);
            case "module_mb" -> group + "," + timestamp(r, us) + "," + amount(r) + "," + device(r, dev);
            case "npu_mem" -> devId + "," + (r.nextInt(10) == 0 ? "other" : r.nextBoolean() ? "app" : "device") + ","
                    + amount(r) + "," + amount(r) + "," + amount(r) + "," + timestamp(r, us);
            case "record" -> group + "," + timestamp(r, us) + "," + amount(r) + "," + amount(r) + "," + amount(r)
                    + ",," + device(r, dev);
            default -> throw new IllegalArgumentException(layout);
        };
    }

    /** The header of each sampled layout, as the real files write it (shared with {@link MsprofHotLoopTest}). */
    static String header(String layout) {
        return switch (layout) {
            case "module_kb" -> "Device_id,Component,Timestamp(us),Total Reserved(KB),Device";
            case "module_mb" -> "Component,Timestamp(us),Total Reserved(MB),Device";
            case "npu_mem" -> "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)";
            case "record" -> "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
                    + "Stream Ptr,Device Type";
            default -> throw new IllegalArgumentException(layout);
        };
    }

    private MsprofFileResult read(Path p, MsprofPass pass, UnaryOperator<CsvFileScan> tune) throws Exception {
        return TunedRead.read(p, p.getFileName().toString(), pass, 2, tune);
    }

    @ParameterizedTest
    @CsvSource({"module_kb, 1, npu_module_mem", "module_kb, 2, npu_module_mem", "module_mb, 3, npu_module_mem",
        "npu_mem, 4, npu_mem", "record, 5, memory_record", "record, 6, memory_record"})
    void fastAndGeneralPathsAgreeOnEveryQuirk(String layout, long seed, String stem) throws Exception {
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder(header(layout)).append(seed % 2 == 0 ? "\r\n" : "\n");
        int rows = 6000;
        for (int i = 0; i < rows; i++) {
            // runs of clean rows of one series, as in real exports, between irregular ones
            String line = row(layout, r, i);
            sb.append(line).append(r.nextInt(7) == 0 ? "\r\n" : "\n");
        }
        // a cut-off last line: fewer fields, no line break
        sb.append(row(layout, r, rows), 0, 9);
        Path p = dir.resolve(stem + "_" + seed + ".csv");
        Files.writeString(p, sb, StandardCharsets.ISO_8859_1);
        Map<String, Long> moments = Map.of("ready", 1_736_408_883_657_086L + 3000 * 20_000L);
        MsprofPass window = MsprofPass.of(moments).withWindowFrom("ready");
        for (MsprofPass m : java.util.List.of(MsprofPass.of(Map.of()), MsprofPass.of(moments), window)) {
            MsprofFileResult general = read(p, m, s -> s.withFastPath(false));
            MsprofFileResult fast = read(p, m, UnaryOperator.identity());
            MsprofFileResult parts = read(p, m, s -> s.withPartBytes(7919));
            assertThat(general.series()).isNotEmpty();
            assertThat(fast.series()).isEqualTo(general.series());
            assertThat(fast.warnings()).isEqualTo(general.warnings());
            assertThat(fast.rows()).isEqualTo(general.rows()).isEqualTo(rows + 1);
            assertThat(parts.series()).isEqualTo(general.series());
            assertThat(parts.rows()).isEqualTo(rows + 1);
            if (m == window) {
                // the maxima after ready (row 3001 on) are compared too, and there are some
                assertThat(general.series()).anyMatch(s -> s.windowPeak() != null && s.windowPeak().row() > 3000);
            }
        }
    }
}

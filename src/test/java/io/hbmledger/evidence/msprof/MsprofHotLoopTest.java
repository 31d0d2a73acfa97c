package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The hot loop ({@link LaneLoop}, its row template {@link RowTemplate}) against the general
 * tokenizer, on what only long runs of one series reach: rows of the template's shape with
 * other digits, and one odd row at a time inside such a run (a time or an amount beyond a long
 * in the same shape, another device of the same length after the time, a NUL byte or a quote in
 * the last cell, an empty or negative amount, an extra field, CR LF for one row, a longer
 * amount, a ':' or '?' in place of one digit). Each layout the fast path reads; the runs are long enough to cross 64 KiB read
 * buffers and file parts; read also through windows of both byte orders. Expected values are
 * the general path's.
 */
class MsprofHotLoopTest {

    @TempDir
    Path dir;

    /** A plain row of the layout: device, group, time (us with 3 decimals) and amount as given. */
    private static String row(String layout, int dev, String group, String ts, String amount, String tail) {
        return switch (layout) {
            case "module_kb" -> dev + "," + group + "," + ts + "\t," + amount + ",NPU:" + dev + tail;
            case "module_mb" -> group + "," + ts + "," + amount + ",NPU:" + dev + tail;
            case "npu_mem" -> dev + "," + group + ",0," + amount + "," + amount + "," + ts + "\t" + tail;
            case "record" -> group + "," + ts + "," + amount + "," + amount + "," + amount + ",281473422065216,NPU:"
                    + dev + tail;
            default -> throw new IllegalArgumentException(layout);
        };
    }

    /** One of the odd rows a run may hold, in place of a plain one. */
    private static String odd(String layout, Random r, int dev, String group, String ts, String amount) {
        return switch (r.nextInt(14)) {
            case 0 -> row(layout, dev, group, "9999999999999999.999", amount, ""); // time beyond a long in ns
            case 1 -> row(layout, dev, group, ts, "999999999999999", ""); // 15 digits: beyond a long in MB
            case 2 -> row(layout, dev == 9 ? 8 : dev + 1, group, ts, amount, ""); // another device, same length
            case 3 -> row(layout, dev, group, ts, amount, "") + "\0"; // NUL in the last cell
            case 4 -> row(layout, dev, group, ts, amount, "\"");
            case 5 -> row(layout, dev, group, ts, "", "");
            case 6 -> row(layout, dev, group, ts, "-1", "");
            case 7 -> row(layout, dev, group, ts, amount, ",extra");
            case 8 -> row(layout, dev, group, ts, amount, "\r");
            case 9 -> row(layout, dev, group, ts, amount + "12", ""); // a longer amount: a new template
            case 10 -> row(layout, dev, group, ts.substring(0, ts.length() - 1), amount, ""); // two decimals
            // a byte just above the digits (0x3A-0x3F) where a digit was: the template's check of free digits
            case 11 -> row(layout, dev, group, ts.substring(0, 12) + ':' + ts.substring(13), amount, "");
            case 12 -> row(layout, dev, group, ts, amount.length() > 1 ? '?' + amount.substring(1) : "?", "");
            default -> row(layout, dev, group, ts, amount.replace('.', ','), "");
        };
    }

    private Path file(String layout, long seed, long startUs) throws Exception {
        Random r = new Random(seed);
        // seeds from 9 on: devices 10-15 and a long module name, rows of 49 to 80 bytes, around the
        // template's longest (64 bytes, RowTemplate.WORDS), in the middle of the file
        boolean wide = seed >= 9;
        String[] groups = layout.equals("npu_mem") ? new String[] {"app", "device"}
                : wide ? new String[] {"SLOG", "ASCENDCKERNEL", "MDCPERCEPTION", "DVPP_MODULE_WITH_A_LONG_NAME"}
                : new String[] {"SLOG", "HCCL", "APP", "ASCENDCKERNEL", "MDCPERCEPTION", "RUNTIME"};
        StringBuilder sb = new StringBuilder(MsprofFastPathQuirksTest.header(layout)).append('\n');
        long us = startUs;
        int rows = 0;
        for (int run = 0; run < 24; run++) {
            int dev = r.nextInt(wide ? 16 : 10);
            String group = groups[r.nextInt(groups.length)];
            int length = 50 + r.nextInt(400);
            long amount = r.nextInt(4) == 0 ? 0 : 100_000 + r.nextInt(900_000);
            for (int i = 0; i < length; i++) {
                us += 20_000 + r.nextInt(900);
                if (r.nextInt(5) == 0) {
                    amount += r.nextInt(2_000); // other digits, mostly the same length
                }
                String ts = us + "." + (100 + r.nextInt(900));
                String a = amount == 0 ? "0.0" : layout.endsWith("mb") || layout.equals("record")
                        ? amount / 1000 + "." + (100 + r.nextInt(900)) : Long.toString(amount);
                sb.append(r.nextInt(60) == 0 ? odd(layout, r, dev, group, ts, a) : row(layout, dev, group, ts, a, ""))
                        .append('\n');
                rows++;
            }
        }
        Path p = dir.resolve(layout + "_" + seed + ".csv");
        Files.writeString(p, sb, StandardCharsets.ISO_8859_1);
        assertThat(rows).isGreaterThan(1000);
        return p;
    }

    private static MsprofFileResult read(Path p, MsprofPass pass, UnaryOperator<CsvFileScan> tune) throws Exception {
        return TunedRead.read(p, p.getFileName().toString(), pass, 2, tune);
    }

    @ParameterizedTest
    @CsvSource({"module_kb, 1, 1736408883657146", "module_kb, 2, 1736408883657146", "module_mb, 3, 1736408883657146",
        "npu_mem, 4, 1736408883657146", "record, 5, 1736408883657146",
        // the first 8 of 16 digits (fixed bytes of a row template) change in the middle of runs
        "module_kb, 6, 1736408899960000", "npu_mem, 7, 1736408899960000", "module_mb, 8, 1736408899960000",
        "module_kb, 9, 1736408883657146", "module_mb, 10, 1736408899960000", "npu_mem, 11, 1736408883657146"})
    void theHotLoopAndTheGeneralPathAgreeInsideLongRuns(String layout, long seed, long startUs) throws Exception {
        Path p = file(layout, seed, startUs);
        byte[] bytes = Files.readAllBytes(p);
        MsprofPass pass = MsprofPass.of(Map.of("mid", startUs + 3_000L * 20_000))
                .withWindowFrom("mid");
        MsprofFileResult general = read(p, pass, s -> s.withFastPath(false));
        assertThat(general.series()).isNotEmpty();
        assertThat(general.warnings()).isNotEmpty(); // the odd rows are there
        assertThat(read(p, pass, UnaryOperator.identity())).isEqualTo(general);
        assertThat(read(p, MsprofPass.of(Map.of()), UnaryOperator.identity()))
                .isEqualTo(read(p, MsprofPass.of(Map.of()), s -> s.withFastPath(false)));
        assertThat(read(p, pass, s -> s.withPartBytes(7919)).series()).isEqualTo(general.series());
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            MsprofFileResult windowed = read(p, pass, s -> s.withWindows(ch -> new MappedWindows(
                    (at, length) -> ByteBuffer.wrap(bytes, (int) at, length).slice().order(order),
                    w -> { }, bytes.length, 4093)));
            assertThat(windowed).as("windows in %s", order).isEqualTo(general);
        }
    }

    @Test
    void rowsThatFillTheTemplatesEightWordsAreReadAsTheGeneralPathReadsThem() throws Exception {
        // 62-byte rows: their device's digits are in the 8th word of the template (the first
        // check that had a branch for rows past 48 bytes); one row's device cell differs only there
        StringBuilder sb = new StringBuilder(MsprofFastPathQuirksTest.header("module_kb")).append('\n');
        for (int i = 0; i < 300; i++) {
            String row = "12,ASCENDCKERNEL_MODULE," + (1736408883657146L + 20_000L * i) + ".822\t," + (123456 + i % 7)
                    + ".0,NPU:12";
            assertThat(row.length() + 1).isEqualTo(62);
            sb.append(i == 150 ? row.replace("NPU:12", "NPU:13") : row).append('\n');
        }
        Path p = dir.resolve("npu_module_mem_last_word.csv");
        Files.writeString(p, sb, StandardCharsets.ISO_8859_1);
        MsprofFileResult general = read(p, MsprofPass.of(Map.of()), s -> s.withFastPath(false));
        assertThat(general.series()).singleElement().satisfies(x -> {
            assertThat(x.samples()).isEqualTo(300);
            assertThat(x.peakText()).isEqualTo("123462.0"); // 123456 + 6, the first at row 7
            assertThat(x.peakRow()).isEqualTo(7);
        });
        assertThat(read(p, MsprofPass.of(Map.of()), UnaryOperator.identity())).isEqualTo(general);
    }

    @Test
    void aNulByteInTheLastCellIgnoresTheRowOnEveryPath() throws Exception {
        // line() took such a row as clean before (the NUL sat in a cell it skips)
        Path p = dir.resolve("npu_module_mem_nul.csv");
        Files.writeString(p, MsprofFastPathQuirksTest.header("module_kb") + "\n0,SLOG,1736408883657146.822\t,5.0,NPU:0\n"
                + "0,SLOG,1736408883677146.822\t,7.0,NPU:\0\n0,SLOG,1736408883697146.822\t,6.0,NPU:0\n",
                StandardCharsets.ISO_8859_1);
        MsprofFileResult general = read(p, MsprofPass.of(Map.of()), s -> s.withFastPath(false));
        MsprofFileResult fast = read(p, MsprofPass.of(Map.of()), UnaryOperator.identity());
        assertThat(fast).isEqualTo(general);
        assertThat(general.series()).singleElement().satisfies(s -> {
            assertThat(s.peakBytes()).isEqualTo(6 * 1024L);
            assertThat(s.samples()).isEqualTo(2);
        });
    }

    @Test
    void divisionByPowersOfTenByMultiplicationIsExact() {
        Random r = new Random(7);
        for (int f = 0; f <= 7; f++) {
            long d = Swar.POW10[f];
            long[] edges = {0, 1, d - 1, d, d + 1, Long.MAX_VALUE, Long.MAX_VALUE - d, 1L << 62, (1L << 62) - 1};
            for (long x : edges) {
                assertThat(Swar.divPow10(x, f)).as("%d / %d", x, d).isEqualTo(x / d);
            }
            for (int i = 0; i < 200_000; i++) {
                long x = r.nextLong() >>> 1 >>> r.nextInt(40);
                assertThat(Swar.divPow10(x, f)).as("%d / %d", x, d).isEqualTo(x / d);
            }
        }
    }
}

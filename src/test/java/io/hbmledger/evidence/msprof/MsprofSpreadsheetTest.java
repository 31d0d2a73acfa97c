package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, fault 1: an msprof CSV opened and saved again by a spreadsheet writes its
 * timestamps in exponent notation ({@code 1.70234E+15}). The values are kept, the time is read
 * to what the notation left of it and the loss is said; a row whose time cannot be read still
 * counts for the maxima. The fast path and the general path must agree.
 */
class MsprofSpreadsheetTest {

    @TempDir
    Path dir;

    private static MsprofFileResult read(Path p, UnaryOperator<CsvFileScan> tune) throws Exception {
        return TunedRead.read(p, p.getFileName().toString(), MsprofPass.of(Map.of()), 2, tune);
    }

    private static MsprofSeries series(MsprofFileResult r, MsprofQuantity q, String component) {
        return r.series().stream().filter(s -> s.quantity() == q && component.equals(s.component()))
                .findFirst().orElseThrow();
    }

    @Test
    void exponentTimesAndAnUnreadableTimeKeepTheirRowsValues() throws Exception {
        Path p = dir.resolve("memory_record.csv");
        Files.writeString(p, "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\n"
                + "APP,1.70234E+15,,2048.5,NPU:3\n"
                + "PTA,1.70234E+15,1024.123456,1536,NPU:3\n"
                + "PTA,####,2048,1024,NPU:3\n", StandardCharsets.US_ASCII);
        MsprofFileResult general = read(p, s -> s.withFastPath(false));
        MsprofFileResult fast = read(p, UnaryOperator.identity());
        assertThat(fast).isEqualTo(general);

        // APP reserved 2048.5 MiB = 2048.5 x 1048576 = 2148007936 B, at 1.70234E+15 us
        MsprofSeries app = series(general, MsprofQuantity.RESERVED_PEAK, "APP");
        assertThat(app.peakBytes()).isEqualTo(2_148_007_936L);
        assertThat(app.peakTimestampUs()).isEqualTo(1_702_340_000_000_000L);
        assertThat(app.device()).isEqualTo("npu:3");
        // PTA allocated: row 2 1024.123456 MiB, row 3 2048 MiB (time unreadable) -> 2048 x 1048576, untimed
        MsprofSeries allocated = series(general, MsprofQuantity.ALLOCATED_PEAK, "PTA");
        assertThat(allocated.peakBytes()).isEqualTo(2_147_483_648L);
        assertThat(allocated.peakRow()).isEqualTo(3);
        assertThat(allocated.peakTimestampUs()).isNull();
        assertThat(allocated.samples()).isEqualTo(2);
        // PTA reserved: 1536 MiB (row 2) > 1024 MiB (row 3)
        assertThat(series(general, MsprofQuantity.RESERVED_PEAK, "PTA").peakBytes()).isEqualTo(1536L << 20);
        assertThat(general.warnings()).containsExactly(
                "row 3: timestamp '####' cannot be read as microseconds; the values of these rows still count"
                        + " for the maxima, but for no moment or time window",
                "row 1: timestamp '1.70234E+15' is in exponent notation (and in 1 more rows), as a spreadsheet"
                        + " writes when it re-saves the file: times are known only to 1E+10 us (about 2.8 hours),"
                        + " so peak times and values at moments are approximate; use the export as msprof wrote"
                        + " it for exact times");
    }

    @Test
    void realMemoryRecordResavedWithExponentTimesKeepsEveryPeak() throws Exception {
        Path real = Corpus.file("msprof/msinsight_level1_rank0_memory_record.csv");
        // a spreadsheet's re-save: each time becomes 6 significant digits in exponent notation
        // (1736408883573957.920 -> 1.73641E+15), every other cell stays as written
        Pattern time = Pattern.compile("^([^,]*),(\\d+)\\.\\d+\\t?,", Pattern.MULTILINE);
        String text = Files.readString(real, StandardCharsets.UTF_8);
        Matcher m = time.matcher(text);
        StringBuilder resaved = new StringBuilder();
        while (m.find()) {
            String exp = String.format(java.util.Locale.ROOT, "%.5E", Double.parseDouble(m.group(2)));
            m.appendReplacement(resaved, Matcher.quoteReplacement(m.group(1) + "," + exp + ","));
        }
        m.appendTail(resaved);
        Path p = dir.resolve("memory_record.csv");
        Files.writeString(p, resaved, StandardCharsets.UTF_8);

        MsprofFileResult original = read(real, UnaryOperator.identity());
        MsprofFileResult general = read(p, s -> s.withFastPath(false));
        MsprofFileResult fast = read(p, UnaryOperator.identity());
        MsprofFileResult parts = read(p, s -> s.withPartBytes(997));
        assertThat(fast).isEqualTo(general);
        assertThat(parts.series()).isEqualTo(general.series());
        assertThat(general.series()).hasSameSizeAs(original.series());
        for (int i = 0; i < original.series().size(); i++) {
            MsprofSeries o = original.series().get(i);
            MsprofSeries s = general.series().get(i);
            assertThat(s.peakBytes()).isEqualTo(o.peakBytes());
            assertThat(s.samples()).isEqualTo(o.samples());
            // 1736408883573957 us -> 1.73641E+15: within half a step of 1E+10 us
            assertThat(Math.abs(s.peakTimestampUs() - o.peakTimestampUs())).isLessThanOrEqualTo(5_000_000_000L);
        }
        assertThat(general.warnings()).anyMatch(w -> w.startsWith("row 1: timestamp '1.73641E+15' is in exponent")
                && w.contains("known only to 1E+10 us"));
    }
}

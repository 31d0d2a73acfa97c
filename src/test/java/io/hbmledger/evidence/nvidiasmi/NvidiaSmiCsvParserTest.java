package io.hbmledger.evidence.nvidiasmi;

import static io.hbmledger.evidence.nvidiasmi.NvidiaSmiTableParserTest.all;
import static io.hbmledger.evidence.nvidiasmi.NvidiaSmiTableParserTest.one;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** nvidia-smi --query-gpu / --query-compute-apps CSV. MiB: bytes = n x 1,048,576. */
class NvidiaSmiCsvParserTest {

    private static final long MIB = 1L << 20;

    /**
     * NvidiaSmiFuzzTest finding (kept as finding-used-beyond-any-device): "8318311 MiB" used on one
     * GPU, 7.9 TiB, was taken as read. Now it is left absent with a warning naming it; the rest of
     * the file stays.
     */
    @Test
    void aMemoryFigureBeyondAnyDeviceIsLeftAbsentWithAWarning() {
        SmiParse p = NvidiaSmiCsvParser.parse("index, memory.used [MiB], memory.total [MiB]\n0, 103 MiB, 16303 MiB\n"
                + "1, 8318311 MiB, 16302 MiB\n");
        assertThat(one(p, "fb_used", "gpu:0").bytes()).isEqualTo(103 * MIB);
        assertThat(all(p, "fb_used", "gpu:1")).isEmpty();
        assertThat(one(p, "fb_total", "gpu:1").bytes()).isEqualTo(16302 * MIB);
        // 8318311 x 1048576 = 8722381275136 bytes > 2^40
        assertThat(p.warnings()).containsExactly("line 2: fb_used '8318311 MiB' is 8722381275136 bytes, more than any device"
                + " holds (1 TiB); left absent");
    }

    @Test
    void readsCorpusQueryGpuCsv() throws IOException {
        SmiParse p = NvidiaSmiCsvParser.parse(Files.readString(
                Corpus.file("nvidia-smi/query-gpu-csv_2gpu_index_used_total.csv")));
        // data row 1: "0, 103 MiB, 16303 MiB"
        Observation used0 = one(p, "fb_used", "gpu:0");
        assertThat(used0.bytes()).isEqualTo(108_003_328L); // 103 x 1048576
        assertThat(used0.line()).isEqualTo(1);
        assertThat(used0.text()).isEqualTo("103 MiB");
        assertThat(one(p, "fb_total", "gpu:0").bytes()).isEqualTo(17_094_934_528L); // 16303 x 1048576
        // data row 2: "1, 8311 MiB, 16303 MiB"
        assertThat(one(p, "fb_used", "gpu:1").bytes()).isEqualTo(8311 * MIB);
        assertThat(one(p, "fb_used", "gpu:1").line()).isEqualTo(2);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void nounitsTakesTheHeaderUnitAndNaIsAbsent() {
        String text = "index, name, memory.used [MiB], memory.total [MiB]\r\n"
                + "0, NVIDIA L40S, 45012, 46068\r\n"
                + "1, NVIDIA L40S, [N/A], 46068\r\n";
        SmiParse p = NvidiaSmiCsvParser.parse(text);
        assertThat(one(p, "fb_used", "gpu:0").bytes()).isEqualTo(45012 * MIB);
        assertThat(all(p, "fb_used", "gpu:1")).isEmpty();
        assertThat(one(p, "fb_total", "gpu:1").bytes()).isEqualTo(46068 * MIB);
        assertThat(p.warnings()).singleElement().asString().startsWith("row 2:").contains("[N/A]");
    }

    @Test
    void readsComputeAppsWithPidAndNameButNoDevice() {
        String text = "pid, process_name, used_gpu_memory [MiB]\n1440043, python3, 72122 MiB\n";
        SmiParse p = NvidiaSmiCsvParser.parse(text);
        Observation o = one(p, "process_memory", null);
        assertThat(o.bytes()).isEqualTo(72122 * MIB);
        assertThat(o.context().pid()).isEqualTo(1440043L);
        assertThat(o.context().processName()).isEqualTo("python3");
        assertThat(o.context().device()).isNull();
        assertThat(p.warnings()).singleElement().asString().startsWith("row 1:").contains("index");
    }

    @Test
    void detectsNvidiaCsvButNotMsprofCsv() throws IOException {
        NvidiaSmiReader reader = new NvidiaSmiReader();
        byte[] csv = "index, memory.used [MiB], memory.total [MiB]\n0, 1 MiB, 2 MiB\n".getBytes(StandardCharsets.UTF_8);
        assertThat(reader.detect(new FileHead("a.log", csv, csv.length))).contains(EvidenceFormat.NVIDIA_SMI_CSV);
        Path msprof = Corpus.file("truth.json").resolveSibling("msprof");
        try (Stream<Path> files = Files.list(msprof)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                byte[] b = Files.readAllBytes(f);
                byte[] h = Arrays.copyOf(b, Math.min(b.length, FileHead.HEAD_BYTES));
                assertThat(reader.detect(new FileHead("x.csv", h, b.length))).as(f.toString()).isEmpty();
            }
        }
        Path vllm = Corpus.file("truth.json").resolveSibling("vllm-log");
        try (Stream<Path> files = Files.list(vllm)) {
            for (Path f : files.toList()) {
                byte[] b = Files.readAllBytes(f);
                byte[] h = Arrays.copyOf(b, Math.min(b.length, FileHead.HEAD_BYTES));
                assertThat(reader.detect(new FileHead("nvidia-smi.txt", h, b.length))).as(f.toString()).isEmpty();
            }
        }
    }
}

package io.hbmledger.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real corpus files damaged the way a killed process or a crashed file system damages them: a
 * run of zero bytes appended, or written over part of a line. Every text reader (vLLM log,
 * npu-smi, nvidia-smi, msprof CSV) must still read the undamaged lines, skip the damaged ones
 * and say which; only a mostly-binary file is refused, naming its first damaged line.
 */
class DamagedTextTest {

    @TempDir
    Path dir;

    private static EvidenceFile read(Path p) throws Exception {
        return EvidenceReaders.all().read(p, p.getFileName().toString());
    }

    /** Observations as comparable text: line, quantity, amount, device, component. */
    private static List<String> summary(EvidenceFile f) {
        return f.observations().stream()
                .map(o -> o.line() + " " + o.quantity() + " " + o.bytes() + " " + o.value() + " " + o.context().device()
                        + " " + o.context().component() + " " + o.context().samples())
                .toList();
    }

    @ParameterizedTest
    @CsvSource({
        // corpus file, lines in it (wc -l; each ends with LF, so the zeros form the next line)
        "vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log, 59",
        "npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt, 99",
        "npu-smi/hiascend-doc_atlas200IA2_info_t_usages_i0.txt, 13",
        "nvidia-smi/vllm-55169_H100_580_driver_2gpu_partial.txt, 14",
        "nvidia-smi/query-gpu-csv_2gpu_index_used_total.csv, 3",
    })
    void fourKibOfZerosAfterARealFileLeaveItsFiguresIntact(String corpusFile, int lines) throws Exception {
        Path original = Corpus.file(corpusFile);
        Path damaged = dir.resolve(original.getFileName());
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(Files.readAllBytes(original));
        b.write(new byte[4096]);
        Files.write(damaged, b.toByteArray());

        EvidenceFile good = read(original);
        EvidenceFile f = read(damaged);
        assertThat(f.format()).isEqualTo(good.format());
        assertThat(summary(f)).isEqualTo(summary(good));
        int zeros = lines + 1;
        assertThat(f.warnings().get(0)).startsWith("line " + zeros + ": 4096 NUL bytes on line " + zeros + ",");
        assertThat(f.warnings().subList(1, f.warnings().size())).isEqualTo(good.warnings());
    }

    @Test
    void aZeroedBlockInsideALogLineDropsThatLineOnlyAndNamesIt() throws Exception {
        Path original = Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log");
        String text = Files.readString(original);
        // line 46 reads "... Loading model weights took 15.7847 GB"; zeros written over "47"
        // would leave "15.78 GB" if the NULs were merely stripped, a wrong figure
        String damagedText = text.replace("15.7847 GB", "15.78\0\0 GB");
        assertThat(damagedText).isNotEqualTo(text);
        Path damaged = dir.resolve("serve.log");
        Files.writeString(damaged, damagedText);

        EvidenceFile f = read(damaged);
        assertThat(f.format()).isEqualTo(EvidenceFormat.VLLM_LOG);
        assertThat(f.warnings().get(0)).startsWith("line 46: 2 NUL bytes on line 46,").contains("skipped");
        assertThat(f.observations()).noneMatch(o -> o.quantity() == Quantity.WEIGHTS);
        // every other figure is still read, at its own line
        List<String> expected = summary(read(original)).stream().filter(s -> !s.startsWith("46 ")).toList();
        assertThat(summary(f)).isEqualTo(expected);
    }

    @Test
    void aZeroRunInsideAnMsprofCsvRowIgnoresThatRowInsteadOfInventingAComponent() throws Exception {
        Path original = Corpus.file("msprof/msinsight_level1_rank0_npu_module_mem.csv");
        List<String> lines = Files.readAllLines(original);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            // file line 31 = data row 30 (header excluded); 300 zeros glued to its start
            b.append(i == 30 ? "\0".repeat(300) : "").append(lines.get(i)).append('\n');
        }
        Path damaged = dir.resolve("npu_module_mem.csv");
        Files.writeString(damaged, b);

        EvidenceFile good = read(original);
        EvidenceFile f = read(damaged);
        // the same 77 series (no "\0\0...IDEDH" component), one sample fewer for row 30's
        assertThat(f.observations()).hasSameSizeAs(good.observations());
        assertThat(f.observations()).noneMatch(o -> o.context().component() != null && o.context().component().indexOf('\0') >= 0);
        assertThat(f.warnings()).contains("row 30: holds NUL bytes, as a process killed mid-write or a file system"
                + " recovered after a crash leaves; row ignored");
        long samplesGood = good.observations().stream().mapToLong(o -> o.context().samples() == null ? 0 : o.context().samples()).sum();
        long samples = f.observations().stream().mapToLong(o -> o.context().samples() == null ? 0 : o.context().samples()).sum();
        assertThat(samples).isEqualTo(samplesGood - 1);
    }

    @Test
    void aMostlyBinaryFileIsRefusedNamingItsFirstDamagedLine() throws Exception {
        // 3 text lines, then 10 lines of random bytes each holding a NUL: 10 of 13 lines
        // damaged, more than half, the first one line 4
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write("INFO 04-12 08:21:19 [worker.py:267] Loading model weights took 1.5 GB\nok\nok\n"
                .getBytes(StandardCharsets.UTF_8));
        Random r = new Random(7);
        for (int i = 0; i < 10; i++) {
            byte[] junk = new byte[200];
            r.nextBytes(junk);
            for (int k = 0; k < junk.length; k++) {
                if (junk[k] == '\n') {
                    junk[k] = 1;
                }
            }
            junk[50] = 0;
            b.write(junk);
            b.write('\n');
        }
        Path p = dir.resolve("blob.log");
        Files.write(p, b.toByteArray());
        EvidenceFile f = read(p);
        assertThat(f.format()).isEqualTo(EvidenceFormat.UNKNOWN);
        assertThat(f.warnings()).singleElement().asString()
                .startsWith("line 4: format not recognised: binary content (NUL or control bytes on 10 of the 13"
                        + " lines in the first 64 KiB, the first on line 4)");
    }

    @Test
    void aUtf16LogIsDecodedLikeAUtf16SmiTable() throws Exception {
        // PowerShell's '>' writes UTF-16LE with a byte order mark; the npu-smi reader reads that
        // (NpuSmiReaderTest), the vLLM log reader must agree on what is text
        Path original = Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log");
        byte[] body = Files.readString(original).getBytes(StandardCharsets.UTF_16LE);
        byte[] bytes = new byte[body.length + 2];
        bytes[0] = (byte) 0xff;
        bytes[1] = (byte) 0xfe;
        System.arraycopy(body, 0, bytes, 2, body.length);
        Path p = dir.resolve("serve-utf16.log");
        Files.write(p, bytes);
        EvidenceFile f = read(p);
        assertThat(f.format()).isEqualTo(EvidenceFormat.VLLM_LOG);
        assertThat(summary(f)).isEqualTo(summary(read(original)));
    }

    @Test
    void nulLinesAreListedAsRanges() {
        NulLines n = new NulLines();
        String blanked = n.blank("a\n\0b\nc\0\n\0\nd\0");
        // lines 2, 3, 4 and 5 hold NULs: emptied, line endings kept so "a" stays line 1
        assertThat(blanked).isEqualTo("a\n\n\n\n");
        assertThat(n.warning()).get().asString().startsWith("line 2: 4 NUL bytes on lines 2-5,");
    }
}

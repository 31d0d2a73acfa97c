package io.hbmledger.evidence.npusmi;

import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.all;
import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.one;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Device rows of {@code npu-smi info} pasted without the table's two header rows (an issue that
 * starts at the first {@code | 0  910B3 | OK | ...} row, or a few row pairs copied out of a larger
 * table). Rows are cut from the real corpus tables in place; MB is MiB, so each expected byte
 * count is the written number x 1,048,576.
 */
class NpuSmiHeaderlessRowsTest {

    private static final long MIB = 1L << 20;

    /** Lines {@code first..last} (1-based, inclusive) of a corpus npu-smi file, as pasted on their own. */
    private static List<String> excerpt(String name, int first, int last) throws IOException {
        List<String> lines = SmiLines.lines(Files.readString(Corpus.file("npu-smi/" + name), StandardCharsets.UTF_8));
        return lines.subList(first - 1, last);
    }

    @Test
    void rowPairsOf910bAreReadInNpuSmiLayoutAsInferred() throws IOException {
        // lines 8-12 of the 264 table: NPU 0 and NPU 1, the '+===' border between them, no header
        List<String> rows = excerpt("vllm-ascend-264_910B2C_16npu_with_processes.txt", 8, 12);
        SmiParse p = NpuSmiInfoParser.parse(rows);
        // pasted line 2: "| 0 | 0000:66:00.0 | 0   0    / 0   59356/ 65536 |"
        Observation used = one(p, "hbm_used", "npu:0/chip:0");
        assertThat(used.bytes()).isEqualTo(59356 * MIB); // 62,239,277,056 B
        assertThat(used.line()).isEqualTo(2);
        assertThat(used.text()).isEqualTo("59356");
        assertThat(used.context().inferred()).isTrue();
        assertThat(used.context().deviceId()).isNull();
        assertThat(one(p, "hbm_total", "npu:0/chip:0").bytes()).isEqualTo(65536 * MIB);
        // pasted line 5: "59351/ 65536" of NPU 1
        assertThat(one(p, "hbm_used", "npu:1/chip:0").bytes()).isEqualTo(59351 * MIB);
        // the "0 / 0" DDR pair stays the placeholder it is with a header
        assertThat(all(p, "memory_used", null)).isEmpty();
        assertThat(p.observations()).hasSize(4).allMatch(o -> o.context().inferred());
        assertThat(p.warnings()).containsExactly("line 1: rows without npu-smi's header (lines 1-2, 4-5): read in the layout"
                + " npu-smi info prints for 910B2C, HBM-Usage(MB) as the last a / b pair of the chip row (MB = MiB);"
                + " their values are inferred");
    }

    @Test
    void rowPairsOfAtlasA3GiveChipAndPhyId() throws IOException {
        // lines 8-13 of the 2667 table: NPU 0's two chips, "| 0  0 | 0000:9D:00.0 |" and "| 1  1 | 0000:9F:00.0 |"
        SmiParse p = NpuSmiInfoParser.parse(excerpt("vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt", 8, 13));
        Observation chip0 = one(p, "hbm_used", "npu:0/chip:0");
        assertThat(chip0.bytes()).isEqualTo(3412 * MIB); // 3,577,741,312 B
        assertThat(chip0.context().deviceId()).isZero();
        Observation chip1 = one(p, "hbm_used", "npu:0/chip:1");
        assertThat(chip1.bytes()).isEqualTo(3189 * MIB); // 3,343,908,864 B
        assertThat(chip1.line()).isEqualTo(5);
        assertThat(chip1.context().deviceId()).isEqualTo(1);
        assertThat(chip1.context().inferred()).isTrue();
        assertThat(p.warnings()).singleElement().asString()
                .startsWith("line 1: rows without npu-smi's header (lines 1-2, 4-5)").contains("for Ascend910");
    }

    @Test
    void rowPairsOf310pWithOnlyMemoryUsageReadNothing() throws IOException {
        // lines 8-12 of the 6842 table: "| 0  0 | 0000:01:00.0 | 0  1615 / 44278 |": one pair, DDR not HBM
        List<String> rows = excerpt("vllm-ascend-6842_310P3_duo_4cards_8chips_big_npu_ids.txt", 8, 12);
        SmiParse p = NpuSmiInfoParser.parse(rows);
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString()
                // both pairs of the excerpt are named (lines 1-2 and 4-5), in one warning
                .startsWith("line 1: rows without npu-smi's header (310P3, lines 1-2, 4-5): the chip row holds 1 'used / total' pair(s)")
                .contains("nothing was read");
        // the reader still takes the text, so the user sees why nothing came of it
        byte[] bytes = (String.join("\n", rows) + "\n").getBytes(StandardCharsets.UTF_8);
        assertThat(new NpuSmiReader().detect(new FileHead("x.txt", bytes, bytes.length))).contains(EvidenceFormat.NPU_SMI_INFO);
    }

    @Test
    void aLoneRowLikeLineIsNoObservation() {
        String row1 = "| 0     910B3               | OK            | 98.4        50                0    / 0             |";
        // a first row with no second: no device value
        SmiParse p = NpuSmiInfoParser.parse(row1 + "\n");
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 1: npu-smi table rows without their");
        byte[] bytes = (row1 + "\n").getBytes(StandardCharsets.UTF_8);
        assertThat(new NpuSmiReader().detect(new FileHead("x.txt", bytes, bytes.length))).isEmpty();
        // followed by a process row (no bus id): the first row is still no chip's, the second is a process row
        SmiParse q = NpuSmiInfoParser.parse(row1 + "\n| 0 0 | 12345 | python | 3011 |\n");
        assertThat(q.observations()).singleElement().satisfies(o -> {
            assertThat(o.quantity().contractName()).isEqualTo("process_memory");
            assertThat(o.bytes()).isEqualTo(3011 * MIB);
            assertThat(o.context().inferred()).isTrue();
        });
        assertThat(q.warnings()).hasSize(2).anyMatch(w -> w.startsWith("line 1: npu-smi table rows without their"));
    }

    /**
     * Process rows after headerless device pairs (264's lines 8-9, then its process rows 59 and
     * 61): each layout is checked on its own rows, so the chip layout reads the pair and the
     * process rows are read in the process table's layout, not the chip's.
     */
    @Test
    void processRowsAfterHeaderlessPairsAreReadInTheProcessLayout() throws IOException {
        String text = String.join("\n", excerpt("vllm-ascend-264_910B2C_16npu_with_processes.txt", 8, 9)) + "\n"
                + String.join("\n", excerpt("vllm-ascend-264_910B2C_16npu_with_processes.txt", 59, 61)) + "\n";
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(p.observations()).extracting(o -> o.quantity().contractName())
                .containsExactly("hbm_used", "hbm_total", "process_memory", "process_memory");
        // 264 line 59, pasted line 3: "| 0       0                 | 418635        | vllm                     | 56057                   |"
        Observation vllm = one(p, "process_memory", "npu:0/chip:0");
        assertThat(vllm.line()).isEqualTo(3);
        assertThat(vllm.bytes()).isEqualTo(56057 * MIB); // 58,780,024,832 B
        assertThat(vllm.context().pid()).isEqualTo(418635L);
        assertThat(vllm.context().processName()).isEqualTo("vllm");
        assertThat(vllm.context().inferred()).isTrue();
        // 264 line 61, pasted line 5: NPU 1, pid 418709 rayNPURayWork, 56063 MiB
        Observation ray = one(p, "process_memory", "npu:1/chip:0");
        assertThat(ray.bytes()).isEqualTo(56063 * MIB);
        assertThat(ray.context().pid()).isEqualTo(418709L);
        assertThat(p.warnings()).containsExactlyInAnyOrder(
                "line 1: rows without npu-smi's header (lines 1-2): read in the layout npu-smi info prints for 910B2C,"
                        + " HBM-Usage(MB) as the last a / b pair of the chip row (MB = MiB); their values are inferred",
                "line 3: process rows without npu-smi's header (lines 3, 5): read in the layout npu-smi info prints,"
                        + " 'NPU Chip | Process id | Process name | Process memory(MB)' (MB = MiB); their values are inferred");
    }

    /**
     * Only the process section pasted, without its header (264's lines 59-61, between two lines of
     * prose): the reader takes the rows and reads them in npu-smi's process table layout, inferred.
     */
    @Test
    void processRowsAloneAreReadAsInferred() throws IOException {
        List<String> rows = excerpt("vllm-ascend-264_910B2C_16npu_with_processes.txt", 59, 61);
        String text = "进程信息如下：\n\n" + String.join("\n", rows) + "\n\n谢谢\n";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertThat(new NpuSmiReader().detect(new FileHead("x.md", bytes, bytes.length))).contains(EvidenceFormat.NPU_SMI_INFO);
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(p.observations()).extracting(Observation::line, Observation::bytes, o -> o.context().pid())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(3, 56057 * MIB, 418635L),
                        org.assertj.core.groups.Tuple.tuple(5, 56063 * MIB, 418709L));
        assertThat(p.observations()).allMatch(o -> o.context().inferred());
        assertThat(p.warnings()).singleElement().asString()
                .startsWith("line 3: process rows without npu-smi's header (lines 3, 5)");
    }

    /**
     * One process row pasted alone (264's line 59, "| 0       0 | 418635 | vllm | 56057 |" at
     * npu-smi's widths) between two lines of prose: read like several, inferred.
     */
    @Test
    void aLoneProcessRowAtNpuSmisWidthsIsReadAsInferred() throws IOException {
        String text = "只有这个进程占用：\n" + excerpt("vllm-ascend-264_910B2C_16npu_with_processes.txt", 59, 59).get(0) + "\n谢谢\n";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertThat(new NpuSmiReader().detect(new FileHead("x.md", bytes, bytes.length))).contains(EvidenceFormat.NPU_SMI_INFO);
        SmiParse p = NpuSmiInfoParser.parse(text);
        Observation vllm = one(p, "process_memory", "npu:0/chip:0");
        assertThat(vllm.line()).isEqualTo(2);
        assertThat(vllm.bytes()).isEqualTo(56057 * MIB);
        assertThat(vllm.context().pid()).isEqualTo(418635L);
        assertThat(vllm.context().inferred()).isTrue();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 2: process rows without npu-smi's header (line 2)");
    }

    /** The same shape typed by hand (cells not at npu-smi's widths), alone: a markdown table row, not taken. */
    @Test
    void aLoneProcessShapedRowTypedByHandIsNotTaken() {
        byte[] bytes = "the process:\n| 0 0 | 418635 | vllm | 56057 |\n".getBytes(StandardCharsets.UTF_8);
        assertThat(new NpuSmiReader().detect(new FileHead("x.md", bytes, bytes.length))).isEmpty();
        // under the 310P duo's process header widths (corpus 6842 line 33: 31, 17, 26, 27) it is npu-smi's
        String duo = "| 1       0                     | 4021            | python3                  | 3012                      |";
        assertThat(NpuSmiDeviceRows.isPrintedProcessRow(duo)).isTrue();
        assertThat(NpuSmiDeviceRows.isPrintedProcessRow(duo.replace("3012 ", "3012"))).isFalse();
    }

    /** A row of another cell count (a driver that adds a column) is not guessed at. */
    @Test
    void aProcessRowOfAnotherShapeIsNotRead() throws IOException {
        // 264 line 59 with a fifth cell added
        String row = excerpt("vllm-ascend-264_910B2C_16npu_with_processes.txt", 59, 59).get(0) + " 0 |";
        SmiParse p = NpuSmiInfoParser.parse(row + "\n" + row + "\n");
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 1: npu-smi table rows without their");
    }

    @Test
    void aRealHeaderAfterHeaderlessRowsIsReadAsMeasured() throws IOException {
        // two pairs copied out of the 264 table (lines 8-9), then the whole 2667 table with its header
        List<String> text = new java.util.ArrayList<>(excerpt("vllm-ascend-264_910B2C_16npu_with_processes.txt", 8, 9));
        text.add("");
        text.addAll(SmiLines.lines(Files.readString(
                Corpus.file("npu-smi/vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt"), StandardCharsets.UTF_8)));
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(p.observations()).filteredOn(o -> o.line() == 2).hasSize(2).allMatch(o -> o.context().inferred());
        // 2667 line 9 is pasted line 12: "3412 / 65536" under its own header
        Observation headed = p.observations().stream().filter(o -> o.line() == 12 && o.quantity().contractName().equals("hbm_used"))
                .findFirst().orElseThrow();
        assertThat(headed.bytes()).isEqualTo(3412 * MIB);
        assertThat(headed.context().inferred()).isFalse();
        assertThat(p.warnings()).filteredOn(w -> w.contains("rows without npu-smi's header")).singleElement().asString()
                .startsWith("line 1: rows without npu-smi's header (lines 1-2)");
    }
}

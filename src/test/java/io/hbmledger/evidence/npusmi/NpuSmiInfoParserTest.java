package io.hbmledger.evidence.npusmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * npu-smi info tables. Corpus values were read by hand from the files; MB in npu-smi is MiB,
 * so every expected byte count is the written number x 1,048,576 (worked out in comments).
 */
class NpuSmiInfoParserTest {

    private static final long MIB = 1L << 20;

    static SmiParse corpus(String name) throws IOException {
        return NpuSmiInfoParser.parse(Files.readString(Corpus.file("npu-smi/" + name), StandardCharsets.UTF_8));
    }

    static Observation one(SmiParse p, String quantity, String device) {
        List<Observation> found = all(p, quantity, device);
        assertThat(found).as(quantity + " on " + device).hasSize(1);
        return found.get(0);
    }

    static List<Observation> all(SmiParse p, String quantity, String device) {
        return p.observations().stream()
                .filter(o -> o.quantity().contractName().equals(quantity) && (device == null || Objects.equals(o.context().device(), device)))
                .toList();
    }

    @Test
    void reads910B2cWithProcessTable() throws IOException {
        SmiParse p = corpus("vllm-ascend-264_910B2C_16npu_with_processes.txt");
        // line 9: "| 0  | 0000:66:00.0  | 0   0    / 0   59356/ 65536 |" -- value glued to the slash
        Observation used = one(p, "hbm_used", "npu:0/chip:0");
        assertThat(used.bytes()).isEqualTo(59356 * MIB);
        assertThat(used.line()).isEqualTo(9);
        assertThat(used.text()).isEqualTo("59356");
        assertThat(used.context().deviceId()).isNull(); // no Phy-ID / Device column in this header
        assertThat(one(p, "hbm_total", "npu:0/chip:0").bytes()).isEqualTo(65536 * MIB);
        // line 54 (NPU 15): "59351/ 65536"
        assertThat(one(p, "hbm_used", "npu:15/chip:0").bytes()).isEqualTo(59351 * MIB);
        assertThat(all(p, "hbm_used", null)).hasSize(16);
        // the DDR column reads "0 / 0": a placeholder on 910B, not a measurement
        assertThat(all(p, "memory_used", null)).isEmpty();
        assertThat(all(p, "memory_total", null)).isEmpty();
        // process rows: "| 0   0 | 418635 | vllm | 56057 |" and "| 1  0 | 418709 | rayNPURayWork | 56063 |"
        Observation vllm = one(p, "process_memory", "npu:0/chip:0");
        assertThat(vllm.bytes()).isEqualTo(56057 * MIB);
        assertThat(vllm.context().pid()).isEqualTo(418635L);
        assertThat(vllm.context().processName()).isEqualTo("vllm");
        Observation ray = one(p, "process_memory", "npu:1/chip:0");
        assertThat(ray.bytes()).isEqualTo(56063 * MIB);
        assertThat(ray.context().pid()).isEqualTo(418709L);
        assertThat(ray.context().processName()).isEqualTo("rayNPURayWork");
        assertThat(all(p, "process_memory", null)).hasSize(16);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void readsAtlasA3TwoChipsPerNpuWithPhyId() throws IOException {
        SmiParse p = corpus("vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt");
        // line 12: "| 1     1   | 0000:9F:00.0 | 0  0 / 0   3189 / 65536 |" under "Chip  Phy-ID" of NPU 0
        Observation chip1 = one(p, "hbm_used", "npu:0/chip:1");
        assertThat(chip1.bytes()).isEqualTo(3189 * MIB);
        assertThat(chip1.context().deviceId()).isEqualTo(1);
        // NPU 7 chip 1 has Phy-ID 15 and 3188 MB used
        Observation last = one(p, "hbm_used", "npu:7/chip:1");
        assertThat(last.bytes()).isEqualTo(3188 * MIB);
        assertThat(last.context().deviceId()).isEqualTo(15);
        assertThat(one(p, "hbm_total", "npu:7/chip:1").bytes()).isEqualTo(65536 * MIB);
        assertThat(all(p, "hbm_used", null)).hasSize(16);
        // only "No running processes found in NPU n" rows
        assertThat(all(p, "process_memory", null)).isEmpty();
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void reads910B1IdleWithBlankProcessName() throws IOException {
        SmiParse p = corpus("vllm-ascend-312_910B1_8npu_no_running_processes.txt");
        assertThat(one(p, "hbm_used", "npu:0/chip:0").bytes()).isEqualTo(3437 * MIB);
        assertThat(one(p, "hbm_used", "npu:7/chip:0").bytes()).isEqualTo(3380 * MIB);
        // "| 0       0                 | 641248        |                          | 113  |"
        Observation proc = one(p, "process_memory", "npu:0/chip:0");
        assertThat(proc.bytes()).isEqualTo(113 * MIB);
        assertThat(proc.context().pid()).isEqualTo(641248L);
        assertThat(proc.context().processName()).isNull();
        assertThat(all(p, "process_memory", null)).hasSize(1);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void reads310pDuoDdrOnlyWithLogicalDeviceIdsAndBigNpuIds() throws IOException {
        SmiParse p = corpus("vllm-ascend-6842_310P3_duo_4cards_8chips_big_npu_ids.txt");
        // line 21: "| 0       4   | 0000:81:00.0 | 0   1541 / 44278 |" under NPU 32768, header "Chip  Device"
        Observation m = one(p, "memory_used", "npu:32768/chip:0");
        assertThat(m.bytes()).isEqualTo(1541 * MIB);
        assertThat(m.context().deviceId()).isEqualTo(4);
        assertThat(one(p, "memory_total", "npu:32768/chip:0").bytes()).isEqualTo(44278 * MIB);
        // chip 1 of NPU 32800: "1216 / 43693", Device 7
        Observation last = one(p, "memory_total", "npu:32800/chip:1");
        assertThat(last.bytes()).isEqualTo(43693 * MIB);
        assertThat(last.context().deviceId()).isEqualTo(7);
        assertThat(one(p, "memory_used", "npu:32800/chip:1").bytes()).isEqualTo(1216 * MIB);
        assertThat(all(p, "hbm_used", null)).isEmpty();
        assertThat(all(p, "memory_used", null)).hasSize(8);
        assertThat(all(p, "process_memory", null)).isEmpty();
        assertThat(p.warnings()).isEmpty();
    }

    // ---- hand-written variants (layouts copied from the corpus and from npu-smi's print code) ----

    static final String A2_HEADER = String.join("\n",
            "+------------------------------------------------------------------------------------------------+",
            "| npu-smi 24.1.0                   Version: 24.1.0                                               |",
            "+---------------------------+---------------+----------------------------------------------------+",
            "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
            "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
            "+===========================+===============+====================================================+");

    @Test
    void pastedIndentedQuotedAndCrlfTablesReadTheSame() {
        String table = A2_HEADER + "\n"
                + "| 3     910B3               | OK            | 93.2        49                0    / 0             |\n"
                + "| 0                         | 0000:02:00.0  | 0           0    / 0          2847 / 65536         |\n"
                + "+===========================+===============+====================================================+\n";
        String indented = table.lines().map(l -> "    " + l).reduce("", (a, b) -> a + b + "\r\n");
        String quoted = table.lines().map(l -> "> " + l).reduce("", (a, b) -> a + b + "\n");
        for (String text : List.of(table, indented, quoted)) {
            SmiParse p = NpuSmiInfoParser.parse(text);
            // 2847 MiB = 2,985,295,872 bytes; the chip row is line 8
            Observation used = one(p, "hbm_used", "npu:3/chip:0");
            assertThat(used.bytes()).isEqualTo(2_985_295_872L);
            assertThat(used.line()).isEqualTo(8);
            assertThat(one(p, "hbm_total", "npu:3/chip:0").bytes()).isEqualTo(68_719_476_736L);
            assertThat(p.warnings()).isEmpty();
        }
    }

    @Test
    void truncatedTableWarnsNamingTheLineAndKeepsTheRest() {
        String text = A2_HEADER + "\n"
                + "| 0     910B3               | OK            | 93.2        49                0    / 0             |\n"
                + "| 0                         | 0000:01:00.0  | 0           0    / 0          3000 / 65536         |\n"
                + "+===========================+===============+====================================================+\n"
                + "| 1     910B3               | OK            | 93.2        49                0    / 0             |\n"
                + "| 0                         | 0000:02:00.0  | 0           0    / 0          3100 / 655";
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(one(p, "hbm_used", "npu:0/chip:0").bytes()).isEqualTo(3000 * MIB);
        // line 11 is cut inside the HBM column: "655" must not be read as a 655 MiB total
        assertThat(all(p, "hbm_total", "npu:1/chip:0")).isEmpty();
        assertThat(all(p, "hbm_used", "npu:1/chip:0")).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 11:").contains("cut off");
    }

    @Test
    void tableCutAfterFirstChipRowWarns() {
        String text = A2_HEADER + "\n"
                + "| 0     910B3               | OK            | 93.2        49                0    / 0             |\n";
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 7:").contains("NPU 0").contains("cut off");
    }

    @Test
    void oldAtlas910ShowsDdrAndHbmAndNaMeansAbsent() {
        // 910A layout (npu-smi 22.x): a real DDR column next to HBM; second chip has used = NA
        String text = String.join("\n",
                "+----------------------+---------------+----------------------------------------------------+",
                "| NPU   Name           | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
                "| Chip                 | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
                "+======================+===============+====================================================+",
                "| 0     910A           | OK            | 67.8        45                0    / 0             |",
                "| 0                    | 0000:61:00.0  | 12          2006 / 15039      1024 / 32768         |",
                "+======================+===============+====================================================+",
                "| 1     910A           | OK            | 67.8        45                0    / 0             |",
                "| 0                    | 0000:62:00.0  | 12          2006 / 15039      NA / 32768           |",
                "+======================+===============+====================================================+");
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(one(p, "memory_used", "npu:0/chip:0").bytes()).isEqualTo(2006 * MIB);
        assertThat(one(p, "memory_total", "npu:0/chip:0").bytes()).isEqualTo(15039 * MIB);
        assertThat(one(p, "hbm_used", "npu:0/chip:0").bytes()).isEqualTo(1024 * MIB);
        assertThat(one(p, "hbm_total", "npu:0/chip:0").bytes()).isEqualTo(32768 * MIB);
        assertThat(all(p, "hbm_used", "npu:1/chip:0")).isEmpty(); // NA: absent, never 0
        assertThat(one(p, "hbm_total", "npu:1/chip:0").bytes()).isEqualTo(32768 * MIB);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void extraColumnsShiftedBordersAndWideIdsAreReadFromTheHeader() {
        // A3 soft-partition layout (borders not aligned with the header) plus an unknown column
        // a newer driver might add, and a 7-digit NPU id.
        String text = String.join("\n",
                "+---------------------------+---------------+---------------------------------------------------+",
                "| NPU   Name         | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)      |",
                "| Chip  Phy-ID       | Bus-Id        | AICore(%)   Vector(%)  Memory-Usage(MB)  HBM-Usage(MB) |",
                "+===========================+===============+===================================================+",
                "| 1048576 xxx        | OK            | 157.3       32                0    / 0                   |",
                "| 1     9            | 0000:9D:00.0  | 0           7          0        / 0      3130 / 65536    |",
                "+===========================+---------------+===================================================+",
                "+---------------------------+---------------+---------------------------------------------------+",
                "| NPU     Chip       | Process id    | Process name| Process memory(MB) |Process id in container|",
                "+===========================+===============+===================================================+",
                "| 1048576 1          | 4242          | python3     | 1024               | 17                    |",
                "+===========================+===============+===================================================+");
        SmiParse p = NpuSmiInfoParser.parse(text);
        Observation used = one(p, "hbm_used", "npu:1048576/chip:1");
        assertThat(used.bytes()).isEqualTo(3130 * MIB);
        assertThat(used.context().deviceId()).isEqualTo(9);
        Observation proc = one(p, "process_memory", "npu:1048576/chip:1");
        assertThat(proc.bytes()).isEqualTo(1024 * MIB);
        assertThat(proc.context().pid()).isEqualTo(4242L); // the host pid, not the container's 17
        assertThat(proc.context().processName()).isEqualTo("python3");
        assertThat(proc.context().deviceId()).isEqualTo(9); // Phy-ID from the chip table of the same file
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void malformedValuesAreAbsentWithAWarning() {
        String text = A2_HEADER + "\n"
                + "| 0     910B3               | OK            | 93.2        49                0    / 0             |\n"
                + "| 0                         | 0000:01:00.0  | 0           0    / 0          3x00 / 65536         |\n"
                + "+===========================+===============+====================================================+\n"
                + "| x     910B3               | OK            | 93.2        49                0    / 0             |\n"
                + "| 0                         | 0000:02:00.0  | 0           0    / 0          3100 / 65536         |\n"
                + "+===========================+===============+====================================================+\n";
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(all(p, "hbm_used", null)).isEmpty();
        assertThat(one(p, "hbm_total", "npu:0/chip:0").bytes()).isEqualTo(65536 * MIB);
        assertThat(p.warnings()).hasSize(2);
        assertThat(p.warnings().get(0)).startsWith("line 8:").contains("3x00");
        assertThat(p.warnings().get(1)).startsWith("line 10:").contains("NPU id");
    }

    @Test
    void rowsWithoutHeaderAreNotGuessed() {
        String text = "| 2     Ascend910           | OK            | 163.1                |\n"
                + "| 0     4                   | 0000:95:00.0  | 0 / 0  2909 / 65536 |\n";
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 1:").contains("header");
    }

    @Test
    void severalSamplesInOneFileAreEachRead() {
        String sample = A2_HEADER + "\n"
                + "| 0     910B3               | OK            | 93.2        49                0    / 0             |\n"
                + "| 0                         | 0000:01:00.0  | 0           0    / 0          USED / 65536         |\n"
                + "+===========================+===============+====================================================+\n";
        String text = sample.replace("USED", "3000") + "\nCANN:\nversion=8.0.0\n" + sample.replace("USED", "41000");
        SmiParse p = NpuSmiInfoParser.parse(text);
        List<Observation> used = all(p, "hbm_used", "npu:0/chip:0");
        assertThat(used).extracting(Observation::bytes).containsExactly(3000 * MIB, 41000 * MIB);
        // second sample starts after 9 lines of the first + blank + 2 CANN lines: its chip row is line 20
        assertThat(used.get(1).line()).isEqualTo(20);
    }

    @Test
    void headerWithoutItsMemoryRowWarns() {
        String text = A2_HEADER.lines().filter(l -> !l.contains("Bus-Id")).reduce("", (a, b) -> a + b + "\n")
                + "| 0     910B3               | OK            | 93.2        49                0    / 0             |\n"
                + "| 0                         | 0000:01:00.0  | 0           0    / 0          3000 / 65536         |\n";
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(p.observations()).isEmpty();
        // the header ends at the '+====' border on line 5
        assertThat(p.warnings()).singleElement().asString().startsWith("line 5:").contains("HBM-Usage");
    }

    @Test
    void pasteStartingAtTheSecondHeaderRowIsStillRead() {
        // as pasted in vllm-ascend issue 1903: the first header row was left out
        String text = String.join("\n",
                "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
                "+===========================+===============+====================================================+",
                "| 0     910B3               | OK            | 98.4        50                0    / 0             |",
                "| 0                         | 0000:C1:00.0  | 0           0    / 0          3369 / 65536         |",
                "+===========================+===============+====================================================+");
        SmiParse p = NpuSmiInfoParser.parse(text);
        Observation used = one(p, "hbm_used", "npu:0/chip:0");
        assertThat(used.bytes()).isEqualTo(3369 * MIB);
        assertThat(used.line()).isEqualTo(4);
        assertThat(p.warnings()).singleElement().asString().startsWith("line 1:").contains("second header row");
    }

    /**
     * issue 14: a "No running processes" line looked through every observation so far for its
     * NPU's chips (quadratic: 21 s of CPU for 800 tables). Now an index kept as observations come;
     * the answer per table must stay what it was: 7 NPUs without processes, one chip each, give 7
     * process_count 0 per table (NPU 0 has a process row), the same in every repetition.
     */
    @Test
    void aRepeatedTableGivesTheSameNoProcessCountsPerRepetition() throws IOException {
        String one = Files.readString(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"), StandardCharsets.UTF_8);
        SmiParse single = NpuSmiInfoParser.parse(one);
        SmiParse thrice = NpuSmiInfoParser.parse(one.repeat(3));
        List<Observation> zeros = all(single, "process_count", null).stream().filter(o -> o.value() == 0.0).toList();
        assertThat(zeros).extracting(o -> o.context().device())
                .containsExactly("npu:1/chip:0", "npu:2/chip:0", "npu:3/chip:0", "npu:4/chip:0", "npu:5/chip:0", "npu:6/chip:0", "npu:7/chip:0");
        assertThat(all(thrice, "process_count", null).stream().filter(o -> o.value() == 0.0).map(o -> o.context().device()).toList())
                .isEqualTo(java.util.stream.Stream.of(1, 2, 3).flatMap(r -> zeros.stream().map(o -> o.context().device())).toList());
    }
}

package io.hbmledger.evidence.paste;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, pasted text: an issue body mixing prose, fenced npu-smi output, an indented command
 * and a bare vLLM error line. Each block goes to its reader; every value cites its line in the
 * paste; prose is skipped and the parts are listed. Byte values worked out in the comments.
 */
class PasteReaderTest {

    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private static final String ISSUE = String.join("\n",
            "# Fourth instance refused",                                                          // 1
            "",                                                                                   // 2
            "I started four instances, the last one with:",                                       // 3
            "",                                                                                   // 4
            "    CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-0.6B --gpu-memory-utilization 0.9", // 5
            "",                                                                                   // 6
            "npu-smi showed this before it:",                                                     // 7
            "",                                                                                   // 8
            "```",                                                                                // 9
            "$ npu-smi info -t usages -i 2 -c 0",                                                 // 10
            "\tMemory Capacity(MB)    : 7680",                                                    // 11
            "\tMemory Usage Rate(%)   : 12",                                                      // 12
            "```",                                                                                // 13
            "",                                                                                   // 14
            "> and the table, quoted:",                                                           // 15
            "> ```text",                                                                          // 16
            "> | NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
            "> | Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
            "> +===========================+===============+====================================================+",
            "> | 0     910B2               | OK            | 94.5        36                0    / 0             |",
            "> | 0                         | 0000:C1:00.0  | 0           0    / 0          59872/ 65536         |",
            "> +===========================+===============+====================================================+",
            "> ```",                                                                              // 23
            "Then it failed with",                                                                // 24
            "ValueError: Free memory on device (27.18/60.96 GiB) on startup is less than desired GPU memory"
                    + " utilization (0.9, 54.86 GiB).",                                           // 25
            "Any idea?",                                                                          // 26
            "");

    private EvidenceFile read(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return EvidenceReaders.all().read(p, name);
    }

    private static Observation one(EvidenceFile f, String quantity) {
        List<Observation> found = f.observations().stream().filter(o -> o.quantity().contractName().equals(quantity)).toList();
        assertThat(found).as(quantity).hasSize(1);
        return found.get(0);
    }

    @Test
    void eachBlockIsReadByItsReaderAndCitesItsLineInThePaste() throws Exception {
        EvidenceFile f = read("issue.md", ISSUE);
        assertThat(f.format().contractName()).isEqualTo("pasted-text");
        // line 11: 7680 MiB = 7680 x 1048576 = 8,053,063,680 B, device from the echoed -i 2 -c 0
        Observation cap = one(f, "memory_capacity");
        assertThat(cap.bytes()).isEqualTo(8_053_063_680L);
        assertThat(cap.line()).isEqualTo(11);
        assertThat(cap.context().device()).isEqualTo("npu:2/chip:0");
        // line 21 (quoted table): 59872 MiB used of 65536 on NPU 0
        Observation used = one(f, "hbm_used");
        assertThat(used.bytes()).isEqualTo(59872 * MIB);
        assertThat(used.line()).isEqualTo(21);
        assertThat(used.context().device()).isEqualTo("npu:0/chip:0");
        assertThat(one(f, "hbm_total").bytes()).isEqualTo(65536 * MIB);
        // line 25, a bare error line: free 27.18 GiB of 60.96 GiB, budget 0.9 -> 54.86 GiB (GiB = 2^30 B)
        Observation free = one(f, "free_memory_at_start");
        assertThat(free.line()).isEqualTo(25);
        assertThat(free.bytes()).isEqualTo(Math.round(27.18 * (1L << 30)));
        assertThat(one(f, "total_memory").bytes()).isEqualTo(Math.round(60.96 * (1L << 30)));
        assertThat(one(f, "instance_budget").line()).isEqualTo(25);
        assertThat(f.observations()).filteredOn(o -> o.quantity().contractName().equals("memory_utilization"))
                .extracting(Observation::line).containsExactly(5, 25);
    }

    @Test
    void thePartsSayWhichLinesWereReadAsWhat() throws Exception {
        EvidenceFile f = read("issue.md", ISSUE);
        assertThat(f.parts()).extracting(EvidencePart::lines, EvidencePart::shownFormat, EvidencePart::label)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("line 1", "prose", "prose"),
                        org.assertj.core.groups.Tuple.tuple("line 3", "prose", "prose"),
                        org.assertj.core.groups.Tuple.tuple("line 5", "vllm-log", "lines in prose"),
                        org.assertj.core.groups.Tuple.tuple("line 7", "prose", "prose"),
                        org.assertj.core.groups.Tuple.tuple("lines 10-12", "npu-smi-usages", "``` block"),
                        org.assertj.core.groups.Tuple.tuple("line 15", "prose", "prose"),
                        org.assertj.core.groups.Tuple.tuple("lines 17-22", "npu-smi-info", "```text block"),
                        org.assertj.core.groups.Tuple.tuple("line 24", "prose", "prose"),
                        org.assertj.core.groups.Tuple.tuple("line 25", "vllm-log", "lines in prose"),
                        org.assertj.core.groups.Tuple.tuple("line 26", "prose", "prose"));
    }

    @Test
    void anErrorGluedToAProgressBarInProseIsHandedToTheLogReader() throws Exception {
        // the fenced block makes it a paste; the error line sits in the prose above it
        EvidenceFile f = read("comment.txt", "It loads, then:\n"
                + " 40%|####  | 8/20 [00:10<00:15, 1.3it/s]ValueError: Free memory on device (1.50/8.00 GiB) on startup"
                + " is less than desired GPU memory utilization (0.9, 7.20 GiB).\nstarted with\n```\nvllm serve M\n```\n");
        assertThat(f.format().contractName()).isEqualTo("pasted-text");
        assertThat(f.parts()).extracting(EvidencePart::lines, EvidencePart::shownFormat)
                .contains(org.assertj.core.groups.Tuple.tuple("line 2", "vllm-log"));
        // 1.50 GiB = 1.5 x 2^30 = 1,610,612,736 B, on line 2 of the paste
        assertThat(one(f, "free_memory_at_start").bytes()).isEqualTo(1_610_612_736L);
        assertThat(one(f, "free_memory_at_start").line()).isEqualTo(2);
    }

    @Test
    void proseOnlyIsAPasteWithNothingReadNotARefusal() throws Exception {
        EvidenceFile f = read("note.md", "We run vLLM on a 910B with --gpu-memory-utilization 0.9.\n");
        assertThat(f.usable()).isTrue();
        assertThat(f.observations()).isEmpty();
        assertThat(f.parts()).singleElement().extracting(EvidencePart::shownFormat).isEqualTo("prose");
        assertThat(f.warnings()).singleElement().asString().contains("no machine output that a reader knows");
    }

    @Test
    void textThatSpeaksOfNothingOfOursStaysUnknown() throws Exception {
        EvidenceFile f = read("shopping.txt", "eggs\nmilk\nbread\n");
        assertThat(f.usable()).isFalse();
    }

    /**
     * The 8621 case's npu-smi table and the log's refusal pasted one after the other without a
     * fence: the npu-smi reader alone would take the whole text and drop the refusal.
     */
    @Test
    void anUnfencedTableAndLogAreEachRead() throws Exception {
        Path cases = io.hbmledger.testing.Corpus.root().resolveSibling("cases").resolve("ascend-8621-four-instances-one-910b2");
        List<String> log = Files.readAllLines(cases.resolve("engine-error-4th-instance.log"), StandardCharsets.UTF_8);
        String text = "I started vllm and got this:\n\n"
                + Files.readString(cases.resolve("npu-smi.txt"), StandardCharsets.UTF_8)
                + "\nand the log says\n" + log.get(log.size() - 1) + "\n";
        Path paste = dir.resolve("issue.md");
        Files.writeString(paste, text, StandardCharsets.UTF_8);
        EvidenceFile f = EvidenceReaders.all().read(paste, "issue.md");
        assertThat(f.format().contractName()).isEqualTo("pasted-text");
        // npu-smi.txt: "| 0     0  | ... | 59872 / 65536 |"; the log: "Free memory on device (27.18/60.96 GiB)"
        assertThat(f.observations()).filteredOn(o -> o.quantity().contractName().equals("hbm_used"))
                .extracting(Observation::bytes).contains(59872 * MIB);
        assertThat(f.observations()).filteredOn(o -> o.quantity().contractName().equals("memory_failure"))
                .extracting(o -> o.context().component()).containsExactly("startup_check");
    }

    /**
     * npu-smi device rows pasted without the table's header, as in vllm-ascend issue 1903's
     * table (910B3, "3369 / 65536"): in a fence, and unfenced between prose and a log line. Both go
     * to the npu-smi reader; the values are marked inferred and a warning names the rows.
     */
    @Test
    void headerlessNpuSmiRowsAreReadInAFenceAndInProse() throws Exception {
        String text = String.join("\n",
                "Two instances on one card. npu-smi after the first:",                           // 1
                "```",                                                                            // 2
                "| 0     910B3               | OK            | 98.4        50                0    / 0             |",
                "| 0                         | 0000:C1:00.0  | 0           0    / 0          3369 / 65536         |",
                "```",                                                                            // 5
                "and after the second:",                                                          // 6
                "| 0     910B3               | OK            | 99.1        51                0    / 0             |",
                "| 0                         | 0000:C1:00.0  | 0           0    / 0          33981/ 65536         |",
                "ValueError: Free memory on device (27.18/60.96 GiB) on startup is less than desired GPU memory"
                        + " utilization (0.9, 54.86 GiB).",                                       // 9
                "");
        EvidenceFile f = read("issue.md", text);
        assertThat(f.format().contractName()).isEqualTo("pasted-text");
        List<Observation> used = f.observations().stream().filter(o -> o.quantity().contractName().equals("hbm_used")).toList();
        // line 4: 3369 MiB = 3369 x 1048576 = 3,532,652,544 B; line 8: 33981 MiB = 35,631,661,056 B
        assertThat(used).extracting(Observation::line, Observation::bytes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(4, 3_532_652_544L), org.assertj.core.groups.Tuple.tuple(8, 35_631_661_056L));
        assertThat(used).allMatch(o -> o.context().inferred() && "npu:0/chip:0".equals(o.context().device()));
        assertThat(f.parts()).extracting(EvidencePart::firstLine, EvidencePart::lastLine, p -> p.format().contractName())
                .contains(org.assertj.core.groups.Tuple.tuple(3, 4, "npu-smi-info"), org.assertj.core.groups.Tuple.tuple(7, 8, "npu-smi-info"));
        assertThat(f.warnings()).filteredOn(w -> w.contains("rows without npu-smi's header")).hasSize(2)
                .anyMatch(w -> w.startsWith("lines 7-8 (npu-smi-info): line 7: rows without npu-smi's header (lines 7-8)"));
        assertThat(f.observations()).anyMatch(o -> o.quantity().contractName().equals("memory_failure"));
    }

    /**
     * One process row of npu-smi info, at its printed widths, alone in the prose of an issue whose
     * log says the start was refused: read as that process's memory, inferred. 3012 MiB =
     * 3012 x 1048576 = 3,158,310,912 B.
     */
    @Test
    void aLoneNpuSmiProcessRowInProseIsRead() throws Exception {
        String text = String.join("\n",
                "Only one process holds NPU 0, not mine:",                                        // 1
                "| 0       0                 | 12345         | python3                  | 3012                    |",
                "but vLLM fails with",                                                            // 3
                "ValueError: Free memory on device (27.18/60.96 GiB) on startup is less than desired GPU memory"
                        + " utilization (0.9, 54.86 GiB).",                                       // 4
                "");
        Observation p = loneProcessRow(read("issue.md", text), "npu-smi-info");
        assertThat(p.bytes()).isEqualTo(3_158_310_912L);
        assertThat(p.context().pid()).isEqualTo(12345L);
        assertThat(p.context().processName()).isEqualTo("python3");
    }

    /** The one process_memory of a paste, read from its line 2 as part of that line's range, inferred. */
    private static Observation loneProcessRow(EvidenceFile f, String format) {
        Observation p = one(f, "process_memory");
        assertThat(p.line()).isEqualTo(2);
        assertThat(p.context().inferred()).isTrue();
        assertThat(f.parts()).extracting(EvidencePart::firstLine, q -> q.format().contractName())
                .contains(org.assertj.core.groups.Tuple.tuple(2, format));
        return p;
    }

    /**
     * The nvidia-smi process row that holds the GPU, quoted alone in the prose above a vLLM refusal
     * (row laid out under the corpus localgpt #14 process header): read, inferred. 7000 MiB =
     * 7000 x 1048576 = 7,340,032,000 B.
     */
    @Test
    void aLoneNvidiaSmiProcessRowInProseIsRead() throws Exception {
        String text = String.join("\n",
                "Something else holds the card:",                                                 // 1
                "|    0   N/A  N/A      4242      C   /usr/bin/python3                           7000MiB |",
                "ValueError: Free memory on device (0.9/8.0 GiB) on startup is less than desired GPU memory"
                        + " utilization (0.9, 7.2 GiB).",                                         // 3
                "");
        Observation p = loneProcessRow(read("issue.md", text), "nvidia-smi");
        assertThat(p.bytes()).isEqualTo(7_340_032_000L);
        assertThat(p.context().device()).isEqualTo("gpu:0");
        assertThat(p.context().pid()).isEqualTo(4242L);
    }

    /**
     * An unfenced issue: headerless 910B4 rows quoted with "> " (vllm-ascend #8809's figures, the pair
     * of NPU 0 broken by a quoted blank line) and the start command as inline code in the prose.
     * The npu-smi reader took the text whole and dropped the command; as a paste, both are read.
     */
    @Test
    void anUnfencedTableWithAStartCommandInInlineCodeIsAPaste() throws Exception {
        EvidenceFile f = read("issue.md", String.join("\n",
                "> After the server is up npu-smi shows:",
                "> | 0     910B4               | OK            | 88.5        41                0    / 0             |",
                ">",
                "> | 0                         | 0000:C1:00.0  | 0           0    / 0          28220/ 32768         |",
                "> | 1     910B4               | OK            | 90.1        42                0    / 0             |",
                "> | 0                         | 0000:C2:00.0  | 0           0    / 0          28045/ 32768         |",
                "",
                "vLLM was started with `VLLM_DP_SIZE=2 VLLM_DP_RANK=1 vllm serve Qwen/Qwen3-30B-A3B"
                        + " --gpu-memory-utilization 0.85 -tp 1`.",
                ""));
        assertThat(f.format()).isEqualTo(PasteReader.FORMAT);
        // 28220 MiB = 29590814720 B on line 4, the chip row of NPU 0
        assertThat(f.observations().stream().filter(o -> o.quantity().contractName().equals("hbm_used"))
                .map(o -> o.line() + ":" + o.bytes()).toList()).containsExactly("4:" + 28220 * MIB, "6:" + 28045 * MIB);
        Observation util = one(f, "memory_utilization");
        assertThat(util.value()).isEqualTo(0.85);
        assertThat(util.line()).isEqualTo(8);
        assertThat(one(f, "data_parallel_rank").value()).isEqualTo(1.0);
    }
}

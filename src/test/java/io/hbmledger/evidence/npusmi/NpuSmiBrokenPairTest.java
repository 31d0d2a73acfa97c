package io.hbmledger.evidence.npusmi;

import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.one;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Cases;
import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two lines of one NPU broken apart as markdown breaks them: a blank line, or a blank
 * {@code >} quote line, between a chip's first and second row. The tables are the real ones
 * (vllm-ascend #8809's npu-smi.txt of the shared case, the corpus 264 table), broken in place;
 * MB is MiB, so bytes = MB x 1,048,576.
 */
class NpuSmiBrokenPairTest {

    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private static List<String> table8809() throws Exception {
        return SmiLines.lines(Files.readString(
                Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "npu-smi.txt"), StandardCharsets.UTF_8));
    }

    /** The 8809 table (lines 2-13) with {@code gap} inserted between each chip's two rows (lines 8|9 and 11|12). */
    private static List<String> broken(String prefix, String gap) throws Exception {
        List<String> t = table8809();
        List<String> out = new ArrayList<>();
        for (int i = 1; i < t.size(); i++) {
            out.add(prefix + t.get(i));
            if (i == 7 || i == 10) {
                out.add(gap);
            }
        }
        return out;
    }

    @Test
    void aBlankLineBetweenAChipsRowsKeepsThePair() throws Exception {
        SmiParse p = NpuSmiInfoParser.parse(broken("", ""));
        // NPU 0's second row is now line 9 of the paste: "28220/ 32768"; NPU 1's line 13: "28045/ 32768"
        Observation npu0 = one(p, "hbm_used", "npu:0/chip:0");
        assertThat(npu0.bytes()).isEqualTo(28220 * MIB); // 29,590,814,720 B
        assertThat(npu0.line()).isEqualTo(9);
        assertThat(one(p, "hbm_total", "npu:0/chip:0").bytes()).isEqualTo(32768 * MIB);
        Observation npu1 = one(p, "hbm_used", "npu:1/chip:0");
        assertThat(npu1.bytes()).isEqualTo(28045 * MIB); // 29,407,313,920 B
        assertThat(npu1.line()).isEqualTo(13);
        assertThat(p.observations()).noneMatch(o -> o.context().inferred());
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void aQuotedTableWithBlankQuoteLinesKeepsThePair() throws Exception {
        SmiParse p = NpuSmiInfoParser.parse(broken("> ", ">"));
        assertThat(one(p, "hbm_used", "npu:0/chip:0").bytes()).isEqualTo(28220 * MIB);
        assertThat(one(p, "hbm_used", "npu:1/chip:0").bytes()).isEqualTo(28045 * MIB);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void inAnIssuesMarkdownTooFencedOrQuoted() throws Exception {
        List<String> md = new ArrayList<>();
        md.add("vLLM is up, npu-smi:");                                                     // 1
        md.add("");                                                                       // 2
        md.add("```text");                                                                // 3
        md.addAll(broken("", ""));                                                         // 4-17
        md.add("```");                                                                    // 18
        md.add("");                                                                       // 19
        md.add("and quoted from the other host:");                                        // 20
        md.addAll(broken("> ", ">"));                                                      // 21-34
        Path f = dir.resolve("issue.md");
        Files.write(f, md, StandardCharsets.UTF_8);
        EvidenceFile read = EvidenceReaders.all().read(f, "issue.md");
        // the fenced table's second rows: 4 + 8 = line 12 (NPU 0) and line 16 (NPU 1); the quoted one's: 29 and 33
        assertThat(read.observations()).filteredOn(o -> o.quantity().contractName().equals("hbm_used"))
                .extracting(Observation::line, Observation::bytes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(12, 28220 * MIB),
                        org.assertj.core.groups.Tuple.tuple(16, 28045 * MIB),
                        org.assertj.core.groups.Tuple.tuple(29, 28220 * MIB),
                        org.assertj.core.groups.Tuple.tuple(33, 28045 * MIB));
        assertThat(read.warnings()).noneMatch(w -> w.contains("first row but not its second"));
    }

    @Test
    void headerlessPairsSplitByABlankLineStayInferred() throws Exception {
        // 264's lines 8, 9 and 11, 12 (NPU 0 and 1) without the header, a blank line inside each pair
        List<String> t = SmiLines.lines(Files.readString(
                Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt"), StandardCharsets.UTF_8));
        List<String> pasted = List.of(t.get(7), "", t.get(8), t.get(10), "", t.get(11));
        // the reader takes such a file as npu-smi output too
        byte[] bytes = (String.join("\n", pasted) + "\n").getBytes(StandardCharsets.UTF_8);
        assertThat(new NpuSmiReader().detect(new io.hbmledger.evidence.FileHead("x.txt", bytes, bytes.length)))
                .contains(io.hbmledger.evidence.EvidenceFormat.NPU_SMI_INFO);
        SmiParse p = NpuSmiInfoParser.parse(pasted);
        Observation npu1 = one(p, "hbm_used", "npu:1/chip:0");
        assertThat(npu1.bytes()).isEqualTo(59351 * MIB);
        assertThat(npu1.line()).isEqualTo(6);
        assertThat(npu1.context().inferred()).isTrue();
        assertThat(one(p, "hbm_used", "npu:0/chip:0").bytes()).isEqualTo(59356 * MIB);
        assertThat(p.warnings()).singleElement().asString().startsWith("line 1: rows without npu-smi's header (lines 1-3, 4-6)");
    }

    @Test
    void aFirstRowFollowedByTextAfterTheGapIsStillCutOff() throws Exception {
        // NPU 0's first row, a blank line, then prose: no second row came, as before
        List<String> t = table8809();
        List<String> lines = new ArrayList<>(t.subList(1, 8));
        lines.add("");
        lines.add("the rest did not fit in the screenshot");
        SmiParse p = NpuSmiInfoParser.parse(lines);
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString()
                .isEqualTo("line 7: NPU 0 has its first row but not its second (Chip, Bus-Id, memory columns); the table"
                        + " looks cut off, so this chip's memory was not read");
    }
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One pasted file named once where the report names files, however many kinds of evidence or
 * moments its prose gives: the corpus 312 table (8 x 910B1, NPU 0 at 3437 / 65536 MiB, line 9)
 * with, in the same paste, the "npu-smi info -t usages -i 0" block of that card (written by hand
 * in the layout of the corpus usages file: HBM Capacity(MB) 65536, HBM Usage Rate(%) 5).
 */
class AnalyzePasteFileOnceTest {

    @TempDir
    Path tmp;

    private static List<String> table() throws Exception {
        return AnalyzeBeforeAfterPasteTest.idle();
    }

    /** Two blocks of one sample: "the last of 2 samples in issue.md", never "2 files (issue.md, issue.md)". */
    @Test
    void aTableAndAUsagesBlockOfOnePasteAreOneFileTakenAtOneMoment() throws Exception {
        List<String> md = new ArrayList<>(List.of("npu-smi info:", "```"));
        md.addAll(table());                                  // lines 3-61, NPU 0's HBM at line 11
        md.addAll(List.of("```", "npu-smi info -t usages -i 0:", "```",
                "        NPU ID                         : 0",
                "        Chip Count                     : 1",
                "",
                "        Chip ID                        : 0",
                "        Memory Capacity(MB)            : 15171",    // line 69, the sample's first row
                "        Memory Usage Rate(%)           : 6",
                "        HBM Capacity(MB)               : 65536",
                "        HBM Usage Rate(%)              : 5",        // line 72
                "        Aicore Usage Rate(%)           : 0",
                "```"));
        Path issue = Files.write(tmp.resolve("issue.md"), md, StandardCharsets.UTF_8);
        JsonNode npu0 = AnalyzeIdlePasteTest.analyze(issue).get("devices").get(0);
        String note = npu0.get("used_note").asText();
        assertThat(note).contains("the last of 2 samples of this device in " + issue + " (its rows at lines 11, 69), line 72 used")
                .doesNotContain("files were taken at this moment");
        // the usages block is the last sample: 65536 MiB x 5% = 3276.8 MiB
        assertThat(npu0.get("used_bytes").asLong()).isEqualTo(Math.round(65536.0 * (1 << 20) * 5 / 100)); // 3435973836.8 B, to the byte
    }

    /** An idle table and one of another layout after the start: each named with its moment, not "issue.md" twice. */
    @Test
    void aPasteSplitByMomentIsNamedWithEachMomentWhereItsTablesDisagree() throws Exception {
        List<String> idle = table();
        List<String> after = new ArrayList<>(table().subList(0, 12)); // the header, NPU 0 and NPU 1 (lines 1-12)
        after.set(8, after.get(8).replace("3437 / 65536 ", "58960 / 65536"));
        List<String> md = new ArrayList<>(List.of("Before starting vLLM, npu-smi shows:", "```"));
        md.addAll(idle);
        md.addAll(List.of("```", "After starting vLLM, npu-smi shows:", "```"));
        md.addAll(after);
        md.add("```");
        Path issue = Files.write(tmp.resolve("issue.md"), md, StandardCharsets.UTF_8);
        JsonNode npu0 = AnalyzeIdlePasteTest.analyze(issue).get("devices").get(0);
        String detail = AnalyzeFindingsTest.check(npu0, "samples_same_layout").get("detail").asText();
        assertThat(detail).contains(issue + " (baseline): npu:0/chip:0, 8 chips")
                .contains(issue + " (ready): npu:0/chip:0, 2 chips");
    }
}

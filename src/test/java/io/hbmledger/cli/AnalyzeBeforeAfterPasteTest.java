package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An issue that pastes the same card twice, idle and after the start, and says which is which:
 * the corpus 312 table (8 x 910B1, NPU 0 at 3437 / 65536 MiB, pid 641248 holding 113 MiB) before
 * starting vLLM, and the same table with NPU 0 at 58960 MiB and a python3 process of 55410 MiB
 * after starting it with utilization 0.9 (values written by hand, in 312's layout). The first is
 * the baseline (driver 3437 - 113 = 3324 MiB: pid 641248's memory is not the driver's), the second the ready sample (used 58960 MiB, 0.9996 of the 0.9
 * x 65536 = 58982.4 MiB budget, so nothing is below budget).
 */
class AnalyzeBeforeAfterPasteTest {

    private static final long MIB = 1L << 20;

    @TempDir
    Path tmp;

    /** 312's table with vLLM running on NPU 0: its line 9 (HBM) and a process row added after line 35. */
    private static List<String> afterStart() throws Exception {
        List<String> t = new ArrayList<>(Files.readAllLines(
                Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"), StandardCharsets.UTF_8));
        t.set(8, t.get(8).replace("3437 / 65536 ", "58960 / 65536"));
        t.add(35, "| 0       0                 | 2231906       | python3                  | 55410                   |");
        return t;
    }

    /** The corpus 312 table as written (8 x 910B1, NPU 0 at 3437 / 65536 MiB on its line 9). */
    static List<String> idle() throws Exception {
        return Files.readAllLines(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"),
                StandardCharsets.UTF_8);
    }

    @Test
    void theIdleTableIsTheBaselineAndTheOneAfterTheStartIsTheReadySample() throws Exception {
        List<String> md = new ArrayList<>();
        md.add("Before starting vLLM, npu-smi shows:");
        md.add("");
        md.add("```");
        md.addAll(idle());                                  // lines 4-62, NPU 0's HBM at line 12
        md.add("```");
        md.add("");
        md.add("After starting vLLM with `vllm serve /models/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.9`,"
                + " npu-smi shows:");                       // line 65
        md.add("");
        md.add("```");
        md.addAll(afterStart());                            // lines 68-127, NPU 0's HBM at line 76
        md.add("```");
        JsonNode r = AnalyzeIdlePasteTest.analyze(Files.write(tmp.resolve("issue.md"), md, StandardCharsets.UTF_8));

        assertApart(r, 12, 76);
        assertThat(r.get("notes").toString())
                .contains("lines 4-62 (line 1 says \\\"Before starting\\\") taken at baseline")
                .contains("lines 68-127 (line 65 says \\\"After starting\\\") taken at ready");
        List<String> kinds = new ArrayList<>();
        r.get("findings").forEach(f -> kinds.add(f.get("kind").asText()));
        assertThat(kinds).doesNotContain("below_budget");
    }

    /** The report's answer for npu:0 of the two tables, wherever they sit in the text. */
    private static void assertApart(JsonNode r, int idleLine, int readyLine) {
        JsonNode npu0 = r.get("devices").get(0);
        assertThat(npu0.get("moment").asText()).isEqualTo("ready");
        JsonNode baseline = AnalyzeFindingsTest.entry(npu0, "driver_baseline");
        assertThat(baseline.get("bytes").asLong()).isEqualTo((3437 - 113) * MIB);
        assertThat(baseline.toString()).contains("\"line\":" + idleLine + ",");
        assertThat(npu0.get("used_bytes").asLong()).isEqualTo(58960 * MIB);
        assertThat(npu0.get("used_source").get("line").asInt()).isEqualTo(readyLine);
        // the ready table's processes only: 113 + 55410 MiB; pid 641248 of the idle table is not counted twice
        assertThat(AnalyzeFindingsTest.entry(npu0, "other_processes").get("bytes").asLong()).isEqualTo((113 + 55410) * MIB);
    }

    /** Both tables in one fenced block, a bare "before:" above the first: read apart, as the issue pastes them. */
    @Test
    void bothTablesInOneFencedBlockAreReadApart() throws Exception {
        List<String> md = new ArrayList<>();
        md.add("npu-smi info:");
        md.add("```");
        md.add("before:");                                  // line 3
        md.addAll(idle());                                  // lines 4-62, NPU 0's HBM at line 12
        md.add("after starting vLLM:");                     // line 63
        md.addAll(afterStart());                            // lines 64-123, NPU 0's HBM at line 72
        md.add("```");
        md.add("Why does vLLM take 55 GB on NPU 0?");
        JsonNode r = AnalyzeIdlePasteTest.analyze(Files.write(tmp.resolve("issue.md"), md, StandardCharsets.UTF_8));
        assertApart(r, 12, 72);
        assertThat(r.get("notes").toString()).contains("(line 3 says \\\"before\\\") taken at baseline")
                .contains("(line 63 says \\\"after starting\\\") taken at ready");
    }

    /** The same without a fence: a text the npu-smi reader would take whole, at one moment. */
    @Test
    void bothTablesInATextWithoutAFenceAreReadApart() throws Exception {
        List<String> md = new ArrayList<>();
        md.add("Before starting vLLM:");                    // line 1
        md.addAll(idle());                                  // lines 2-60, NPU 0's HBM at line 10
        md.add("After starting vLLM:");                     // line 61
        md.addAll(afterStart());                            // lines 62-121, NPU 0's HBM at line 70
        assertApart(AnalyzeIdlePasteTest.analyze(Files.write(tmp.resolve("npu-smi.txt"), md, StandardCharsets.UTF_8)), 10, 70);
    }

    /** A bare "before:" above the only table says nothing: before what is not said. */
    @Test
    void aBareBeforeAboveTheOnlyTableIsNoMoment() throws Exception {
        List<String> md = new ArrayList<>(List.of("before:", "```"));
        md.addAll(afterStart());
        md.add("```");
        Path issue = Files.write(tmp.resolve("issue.md"), md, StandardCharsets.UTF_8);
        assertThat(AnalyzeIdlePasteTest.analyze(issue).get("notes").toString()).doesNotContain("taken at baseline");
        // nor does evidence say the part is idle
        CliRun e = CliRun.of("evidence", issue.toString());
        assertThat(e.exit()).as(e.err()).isZero();
        assertThat(e.out()).contains("npu-smi-info").doesNotContain("idle before the server started");
    }

    /**
     * One table, said to be taken after the start: the ready sample, with nothing left of another
     * moment (mixed_moments passed only beside an idle table, and warned "moment not stated" here).
     */
    @Test
    void theOnlyTableSaidToBeTakenAfterTheStartIsTheReadySample() throws Exception {
        for (String prose : List.of("After vLLM started, npu-smi shows:", "vllm启动后 npu-smi 如下：", "While serving, npu-smi shows:")) {
            List<String> md = new ArrayList<>(List.of(prose, "```"));
            md.addAll(afterStart());                        // lines 3-62, NPU 0's HBM at line 11
            md.add("```");
            md.add("Why does vLLM take 55 GB on NPU 0?");
            JsonNode r = AnalyzeIdlePasteTest.analyze(Files.write(tmp.resolve("issue.md"), md, StandardCharsets.UTF_8));
            assertReady(r, prose, 11);
            assertThat(r.get("notes").toString()).contains("lines 3-62 (line 1 says").contains("taken at ready");
        }
    }

    /** The same without a fence: the npu-smi reader takes the file whole, and the line above its table still counts. */
    @Test
    void aFileReadWholeWithAfterTheStartAboveItsTableIsTheReadySample() throws Exception {
        List<String> md = new ArrayList<>(List.of("After starting vLLM:"));
        md.addAll(afterStart());                            // lines 2-61, NPU 0's HBM at line 10
        JsonNode r = AnalyzeIdlePasteTest.analyze(Files.write(tmp.resolve("npu-smi.txt"), md, StandardCharsets.UTF_8));
        assertReady(r, "After starting vLLM:", 10);
        assertThat(r.get("notes").toString()).contains("(line 1 says \\\"After starting\\\") taken at ready");
    }

    private static void assertReady(JsonNode r, String prose, int usedLine) {
        JsonNode npu0 = r.get("devices").get(0);
        assertThat(npu0.get("moment").asText()).as(prose).isEqualTo("ready");
        assertThat(npu0.get("used_bytes").asLong()).isEqualTo(58960 * MIB);
        assertThat(npu0.get("used_source").get("line").asInt()).isEqualTo(usedLine);
        JsonNode mixed = AnalyzeFindingsTest.check(npu0, "mixed_moments");
        assertThat(mixed.get("status").asText()).as(prose + ": " + mixed).isEqualTo("pass");
    }
}

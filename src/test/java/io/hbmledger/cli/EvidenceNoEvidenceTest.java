package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * evidence on a file that holds no evidence: an empty capture, an npu-smi table cut off before its
 * first device row (the corpus 312 table's first 7 lines: banner and column headers), a paste of
 * prose only. Each is listed with 0 observations, exit 0, and stderr says "no evidence found in
 * FILE: expected ...; found ...": the empty file exited 2 while the other two exited 0 without a
 * word on stderr. A file of no known format stays bad input: exit 2, nothing on stdout.
 */
class EvidenceNoEvidenceTest {

    private static final String SMI = "npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt";

    @TempDir
    Path tmp;

    @Test
    void anEmptyCaptureBesideAGoodOneIsListedAndNamedOnStderrExit0() throws Exception {
        Path empty = Files.writeString(tmp.resolve("npu-smi.txt"), "");
        Path blank = Files.writeString(tmp.resolve("npu-smi-2.txt"), "\n  \n\n");
        Path good = Corpus.file(SMI);
        CliRun r = CliRun.of("evidence", empty.toString(), blank.toString(), good.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        // truth.json: 24 values in 312 (hbm_used and hbm_total of 8 NPUs, the DDR column, the process row)
        assertThat(r.out()).contains(empty + "  [unknown]  0 observations").contains(blank + "  [unknown]  0 observations")
                .contains(good + "  [npu-smi-info]  24 observations");
        assertThat(r.err()).contains("no evidence found in " + empty + ": expected npu-smi or nvidia-smi output")
                .contains("; found an empty file (no byte, or blank lines only)")
                .contains("no evidence found in " + blank + ": ")
                .doesNotContain(good.getFileName().toString());
    }

    @Test
    void aTableCutOffBeforeItsRowsIsSaidToHoldNoValue() throws Exception {
        List<String> head = Files.readAllLines(Corpus.file(SMI), StandardCharsets.UTF_8).subList(0, 7);
        Path cut = Files.write(tmp.resolve("npu-smi.txt"), head, StandardCharsets.UTF_8);
        CliRun r = CliRun.of("evidence", cut.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains(cut + "  [npu-smi-info]  0 observations");
        assertThat(r.err()).isEqualTo("hbm-ledger: no evidence found in " + cut + ": expected npu-smi device rows with their"
                + " memory (HBM-Usage(MB) or Memory-Usage(MB) columns, or the usage lines of npu-smi info -t usages); found"
                + " npu-smi-info output in which no line holds a value (cut off before its rows?)" + System.lineSeparator());
    }

    @Test
    void aPasteOfProseOnlyNamesWhatItHolds() throws Exception {
        Path issue = Files.writeString(tmp.resolve("issue.md"),
                "vLLM on the 910B takes all the HBM.\n\n```\nsee the screenshot\n```\n");
        CliRun r = CliRun.of("evidence", "--format", "json", issue.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("\"format\" : \"pasted-text\"").contains("\"observations\" : [ ]");
        assertThat(r.err()).contains("no evidence found in " + issue + ": ")
                .contains("; found prose (line 1), ``` block that no reader knows (line 4)");
    }

    @Test
    void aTextOfNoKnownFormatIsStillBadInput() throws Exception {
        Path notes = Files.writeString(tmp.resolve("notes.txt"), "shopping list: milk, eggs\n");
        CliRun r = CliRun.of("evidence", notes.toString(), Corpus.file(SMI).toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains(notes + ": line 1: format not recognised");
    }
}

package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * evidence DIR lists a folder as analyze DIR does (one rule, RunInputs.folder): the corpus msprof
 * folder holds loose exports (CSV and SQLite files renamed per session, no PROF_* layout), which
 * analyze read and evidence refused as "a directory without either".
 */
class EvidenceFolderTest {

    @TempDir
    Path tmp;

    @Test
    void aFolderOfLooseMsprofFilesIsListedFileByFile() throws Exception {
        Path dir = Corpus.root().resolve("msprof");
        CliRun r = CliRun.of("evidence", "--format", "json", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode files = new ObjectMapper().readTree(r.out()).path("files");
        List<String> paths = new ArrayList<>();
        files.forEach(f -> paths.add(f.path("path").asText()));
        try (var s = Files.list(dir)) {
            // every file of the folder, in name order, as analyze reads them
            assertThat(paths).containsExactlyElementsOf(s.filter(Files::isRegularFile).sorted().map(Path::toString).toList());
        }
        // truth.json: npu_module_mem of the server session, 23 components, one module_reserved_peak each
        JsonNode crlf = files.get(paths.indexOf(dir.resolve("msinsight_server_rank0_npu_module_mem_crlf.csv").toString()));
        assertThat(crlf.path("format").asText()).isEqualTo("msprof-csv");
        assertThat(crlf.path("observations")).hasSize(23);
    }

    @Test
    void aFolderOfOneTableIsReadAndAnEmptyOneRefusedAsAnalyzeRefusesIt() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("issue"));
        Files.copy(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"), dir.resolve("npu-smi.txt"));
        Files.createDirectories(tmp.resolve("nothing"));
        CliRun r = CliRun.of("evidence", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains(dir.resolve("npu-smi.txt") + "  [npu-smi-info]  24 observations");
        CliRun none = CliRun.of("evidence", tmp.resolve("nothing").toString());
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).isEqualTo("hbm-ledger: " + tmp.resolve("nothing") + ": an empty directory without run.json;"
                + " give evidence files or a run directory" + System.lineSeparator());
    }

    /** A run directory: its run.json's evidence entries, as analyze reads them (it was refused: no export in it). */
    @Test
    void aRunDirectoryIsListedByItsRunJson() throws Exception {
        Path run = Path.of("examples", "910b2c-deepseek-r1-tp16-oom");
        CliRun r = CliRun.of("evidence", run.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains(run.resolve("evidence/npu-smi-after-oom.txt") + "  [npu-smi-info]")
                .contains(run.resolve("evidence/vllm-oom.log") + "  [vllm-log]").doesNotContain("run.json");
    }
}

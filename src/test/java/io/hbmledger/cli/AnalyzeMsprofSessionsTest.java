package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * analyze on the corpus msprof folder: loose exports of several profiling sessions (level1 rank 0,
 * server rank 0, server rank 1, a full-db msprof), all with device NPU:0. Read as one export,
 * npu:0's HCCL was the maximum over two sessions: 816.12109375 MiB (server session, row 7) beside
 * the level1 session's CANN figures, without a word. Kept apart, npu:0's figures are one
 * session's: HCCL 404.0625 MiB = 423690240 B (msinsight_level1_rank0_npu_module_mem.csv row 43,
 * truth.json's module_reserved_peak of HCCL), and the other session is named.
 */
class AnalyzeMsprofSessionsTest {

    @Test
    void sessionsOfOneFolderAreKeptApartAndNamed() throws Exception {
        String dir = Corpus.root().resolve("msprof").toString();
        CliRun r = CliRun.of("analyze", "--no-write", "--format", "json", dir);
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(r.out());
        JsonNode npu0 = AnalyzeFindingsTest.device(report, 0);
        JsonNode hccl = AnalyzeFindingsTest.entry(npu0, "hccl");
        assertThat(hccl.get("bytes").asLong()).isEqualTo(423_690_240L);
        assertThat(hccl.toString()).contains("msinsight_level1_rank0_npu_module_mem.csv");
        assertThat(report.get("notes").toString()).contains("the files hold 4 profiling sessions")
                .contains("msinsight_server_rank0: [msinsight_server_rank0_memory_record_5col.csv,");
        JsonNode ids = AnalyzeFindingsTest.check(npu0, "msprof_device_ids");
        assertThat(ids.get("status").asText()).isEqualTo("warn");
        assertThat(ids.get("detail").asText()).contains("also in [npu:0 of files in " + dir + " (msinsight_server_rank0)]");
    }

    @TempDir
    Path tmp;

    /** Two exports named as msprof names them (export time after the table): one table twice, said. */
    @Test
    void oneTableInTwoFilesThatAreNotSlicesIsSaid() throws Exception {
        String header = "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n";
        // beside a log: a folder of files, not an export folder
        Files.copy(Corpus.file("vllm-log/vllm-38820_worker_tp0_model_loading_GiB_memory_and.log"), tmp.resolve("server.log"));
        Files.writeString(tmp.resolve("npu_module_mem_20250109102030.csv"), header + "0,HCCL,1000.000\t,2048,NPU:0\n");
        Files.writeString(tmp.resolve("npu_module_mem_20250110093000.csv"), header + "0,HCCL,9000.000\t,4096,NPU:0\n");
        CliRun r = CliRun.of("analyze", "--no-write", "--format", "json", tmp.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(new ObjectMapper().readTree(r.out()).get("notes").toString()).contains("npu_module_mem is in 2 files that"
                + " are not slices of one (npu_module_mem_20250109102030, npu_module_mem_20250110093000)");
    }
}

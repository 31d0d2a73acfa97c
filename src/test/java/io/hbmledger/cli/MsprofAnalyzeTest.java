package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * analyze over the real torch_npu export of the corpus (msinsight level1 rank 0,
 * ASCEND_PROFILER_OUTPUT CSVs and its SQLite twin), read in place through the file-list mode.
 * Values are read by hand from the files (MB = MiB, as the header says):
 * npu_module_mem HCCL is 404.0625 MB in all 14 samples = 423690240 B; RUNTIME peaks at
 * 92.234375 MB (rows 104-108, .757000 to .836950) = 96714752 B and is 92.1875 MB from
 * .856979 on = 96665600 B; GE is 76.0 MB throughout = 79691776 B; ASCENDCL and every other
 * module except APP are 0.0. memory_record's last PTA row (1003, .749097) has Total Allocated
 * 954.06787109375 MB = 1000412672 B and Total Reserved 1452.0 MB = 1522532352 B.
 */
class MsprofAnalyzeTest {


    private static final String MODULES = "msprof/msinsight_level1_rank0_npu_module_mem.csv";
    private static final String RECORD = "msprof/msinsight_level1_rank0_memory_record.csv";

    private static JsonNode analyze(String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("analyze", "--format", "json"));
        a.addAll(List.of(args));
        return AnalyzeFindingsTest.json(CliRun.of(a.toArray(String[]::new)));
    }

    /** The entry of the first device, as these single-device exports have one. */
    private static JsonNode entry(JsonNode report, String component) {
        return AnalyzeFindingsTest.entry(AnalyzeFindingsTest.device(report, 0), component);
    }

    @Test
    void torchNpuCsvExportGivesMeasuredHcclCannRuntimeAndOtherModules() throws Exception {
        JsonNode r = analyze(Corpus.file(MODULES).toString(), Corpus.file(RECORD).toString());
        JsonNode hccl = entry(r, "hccl");
        assertThat(hccl.get("confidence").asText()).isEqualTo("measured");
        assertThat(hccl.get("bytes").asLong()).isEqualTo(423690240L);
        assertThat(hccl.get("sources").get(0).get("text").asText()).isEqualTo("404.0625");
        // HCCL's maximum is its first sample: data row 43 of the CSV (file line 44), marked as a data row
        assertThat(hccl.get("sources").get(0).get("line").asInt()).isEqualTo(43);
        assertThat(hccl.get("sources").get(0).get("data_row").asBoolean()).isTrue();
        // no ready instant: each module's maximum, RUNTIME 96714752 + GE 79691776 + ASCENDCL 0
        JsonNode rt = entry(r, "cann_runtime");
        assertThat(rt.get("confidence").asText()).isEqualTo("measured");
        // two components of the same msprof sample: still measured, and the sum is shown
        assertThat(rt.get("arithmetic").asText()).startsWith("RUNTIME 96714752 B + GE 79691776 B = 176406528 B");
        assertThat(rt.get("bytes").asLong()).isEqualTo(96714752L + 79691776L);
        assertThat(rt.get("note").asText()).contains("RUNTIME 92.2 MiB", "GE 76.0 MiB", "maximum over the profiled window");
        assertThat(rt.get("moment").isNull()).isTrue();
        JsonNode other = entry(r, "other_modules");
        assertThat(other.get("confidence").asText()).isEqualTo("measured");
        assertThat(other.get("bytes").asLong()).isZero();
        // msprof is present: the run is not "incomplete: no msprof evidence"
        assertThat(r.get("incomplete_reasons").toString()).doesNotContain("no msprof");
        assertThat(checks(r)).contains("msprof_device_ids=pass", "msprof_timeline=skipped");
    }

    @Test
    void evidenceFilesWithoutAReadyInstantAreToldToGiveItWithInstant() throws Exception {
        // was "(the run gives no ready instant (run.json moments.ready))": there is no run.json in this mode
        JsonNode r = analyze(Corpus.file(MODULES).toString());
        assertThat(detail(r, "msprof_timeline")).contains("(--instant ready=TIME)").doesNotContain("run.json");
        assertThat(entry(r, "cann_runtime").get("note").asText()).contains("--instant ready=TIME").doesNotContain("run.json");
    }

    @Test
    void aBadInstantIsRefusedNamingTheAcceptedNamesAndFormat() throws Exception {
        // was: a note and exit 0 ("yesterday", a time without offset) or silence ("readyy")
        String modules = Corpus.file(MODULES).toString();
        for (String bad : List.of("ready=yesterday", "ready=2026-11-29T21:03:04", "readyy=2026-11-29T21:03:04Z")) {
            CliRun r = CliRun.of("analyze", modules, "--instant", bad);
            assertThat(r.exit()).as(bad).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).as(bad).contains("--instant " + bad + ": ")
                    .contains("baseline, start, ready, load_start, load_end, after, stop")
                    .contains("ISO-8601 with an offset or Z")
                    .contains("e.g. --instant ready=2026-11-29T21:03:04.120+08:00");
        }
        assertThat(CliRun.of("analyze", modules, "--instant", "readyy=2026-11-29T21:03:04Z").err())
                .contains("unknown instant name 'readyy'");
        assertThat(CliRun.of("analyze", modules, "--instant", "ready=2026-11-29T21:03:04").err())
                .contains("'2026-11-29T21:03:04' is not a time with an offset");
    }

    @Test
    void valuesAtTheReadyInstantNotTheWholeRunMaximum() throws Exception {
        JsonNode r = analyze("--instant", "ready=2025-01-09T07:48:03.870Z",
                Corpus.file(MODULES).toString(), Corpus.file(RECORD).toString());
        JsonNode rt = entry(r, "cann_runtime");
        // RUNTIME at .856979 (the last sample before .870): 92.1875 MB, not the 92.234375 maximum
        assertThat(rt.get("bytes").asLong()).isEqualTo(96665600L + 79691776L);
        assertThat(rt.get("moment").asText()).isEqualTo("ready");
        assertThat(entry(r, "hccl").get("bytes").asLong()).isEqualTo(423690240L);
        JsonNode cache = entry(r, "allocator_cache");
        assertThat(cache.get("confidence").asText()).isEqualTo("measured");
        assertThat(cache.get("bytes").asLong()).isEqualTo(1522532352L - 1000412672L);
        assertThat(cache.get("sources").get(0).get("line").asInt()).isEqualTo(1003);
        assertThat(checks(r)).contains("msprof_timeline=pass");
    }

    @Test
    void readyOutsideTheProfiledWindowIsSaidAndFallsBackToMaxima() throws Exception {
        JsonNode r = analyze("--instant", "ready=2025-01-09T08:00:00Z", Corpus.file(MODULES).toString());
        assertThat(entry(r, "cann_runtime").get("bytes").asLong()).isEqualTo(96714752L + 79691776L);
        assertThat(checks(r)).contains("msprof_timeline=warn");
        assertThat(detail(r, "msprof_timeline")).contains("after the last sample");
    }

    @Test
    void memoryRecordWithoutAReadyValueGivesAnUnknownAllocatorCacheLineSayingWhy() throws Exception {
        // was: no allocator_cache line at all, which reads as "no cache"
        JsonNode r = analyze(Corpus.file(RECORD).toString());
        JsonNode cache = entry(r, "allocator_cache");
        assertThat(cache.get("confidence").asText()).isEqualTo("unknown");
        assertThat(cache.get("bytes").isNull()).isTrue();
        assertThat(cache.get("note").asText()).contains("memory_record PTA", "needs the ready instant (--instant ready=TIME)");
        assertThat(r.get("incomplete_reasons").toString()).containsPattern("ledger lines without evidence: [^\"]*allocator_cache");
        // memory_record's first row is at 1736408883573957.920 us = 2025-01-09T07:48:03.573957Z: 07:00 is before it
        JsonNode early = analyze("--instant", "ready=2025-01-09T07:00:00Z", Corpus.file(RECORD).toString());
        assertThat(entry(early, "allocator_cache").get("confidence").asText()).isEqualTo("unknown");
        assertThat(entry(early, "allocator_cache").get("note").asText()).contains("no value at ready", "is before the first sample");
    }

    @Test
    void aReadyOutsideTheWindowIsNotCalledTheInstantTheValuesAreTakenAt() throws Exception {
        // was: "msprof values at ready are taken at 2025-01-09T09:00:00Z" while msprof_timeline said
        // the lines fall back to maxima (npu_module_mem's last sample is 07:48:03.907443Z)
        JsonNode r = analyze("--instant", "ready=2025-01-09T09:00:00Z", Corpus.file(MODULES).toString());
        assertThat(r.get("notes").toString()).doesNotContain("msprof values at ready are taken at")
                .contains("ready is 2025-01-09T09:00:00Z (--instant ready), outside every msprof export's profiled window:"
                        + " the npu_mem and npu_module_mem lines show maxima over the profiled window instead")
                .doesNotContain("memory_record");
        assertThat(entry(r, "cann_runtime").get("note").asText()).contains("maximum over the profiled window");
        // inside the window the note is as before
        JsonNode in = analyze("--instant", "ready=2025-01-09T07:48:03.870Z", Corpus.file(MODULES).toString());
        assertThat(in.get("notes").toString()).contains("msprof values at ready are taken at 2025-01-09T07:48:03.870Z (--instant ready)");
    }

    @Test
    void peakNotesSayOnlyWhatTheRunHolds() throws Exception {
        String db = Corpus.file("msprof/msinsight_level1_rank0_ascend_pytorch_profiler_0.db").toString();
        // no ready instant: nothing says whether the maximum (rowid 18) was resident at ready
        JsonNode none = analyze(db);
        assertThat(entry(none, "device_peak").get("note").asText())
                .contains("the whole run's maximum, not a figure at ready, so not in the sum").doesNotContain("not resident at ready");
        // no vLLM log: no vLLM figure to set the growth beside (was "beside vLLM's start-up profile figure")
        JsonNode msprofOnly = analyze("--instant", "ready=2025-01-09T08:16:16.300Z", db);
        assertThat(entry(msprofOnly, "activation_peak_under_load").get("note").asText()).doesNotContain("vLLM");
        assertThat(entry(msprofOnly, "device_peak").get("note").asText()).contains("not resident at ready, so not in the sum");
        // a log with a reported activation peak (1.26GiB on its line 20; the log is there only for that line)
        // --tp 1: the log's own args say TP 2, which would spread its rank-less line over two ranks
        JsonNode withLog = analyze("--tp", "1", "--instant", "ready=2025-01-09T08:16:16.300Z", db,
                Corpus.file("vllm-log/vllm-pr10511_memory_profiling_results_table_truncated.log").toString());
        assertThat(entry(withLog, "activation_peak_under_load").get("note").asText())
                .contains("beside vLLM's start-up profile figure (activation_peak, reported)");
    }

    @Test
    void sqliteTwinGivesTheSameHccl() throws Exception {
        JsonNode r = analyze(Corpus.file("msprof/msinsight_level1_rank0_ascend_pytorch_profiler_0.db").toString());
        assertThat(entry(r, "hccl").get("bytes").asLong()).isEqualTo(423690240L);
        assertThat(entry(r, "cann_runtime").get("note").asText()).contains("RUNTIME 92.2 MiB");
    }

    /**
     * The SQLite twin's NPU_MEM Device rows (rowid 15..28, one every ~20 ms from
     * 1736410576286486200 ns = 2025-01-09T08:16:16.286486Z): 2460499968 B at 15, 2462597120 at 16,
     * 2463629312 at 17, 2468032512 from 18 (.346430) to 26 (.506418), 2466983936 at 27 (.526422),
     * 2464886784 at 28 (.546051).
     */
    @Test
    void sqliteDevicePeakAfterReadyAndTheStartUpMaximumBeforeIt() throws Exception {
        String db = Corpus.file("msprof/msinsight_level1_rank0_ascend_pytorch_profiler_0.db").toString();
        // ready .300: at ready rowid 15 (2460499968); from ready on the maximum is rowid 18, also the
        // whole run's: 2468032512 - 2460499968 = 7532544 B of growth
        JsonNode early = analyze("--instant", "ready=2025-01-09T08:16:16.300Z", db);
        assertThat(entry(early, "device_peak").get("bytes").asLong()).isEqualTo(2468032512L);
        assertThat(entry(early, "device_peak").get("sources").get(0).get("line").asInt()).isEqualTo(18);
        assertThat(entry(early, "device_peak").get("note").asText()).contains("also the whole run's maximum");
        assertThat(entry(early, "activation_peak_under_load").get("bytes").asLong()).isEqualTo(7532544L);
        // ready .516: at ready rowid 26 (2468032512); from ready on rowid 27 (2466983936) is the
        // highest, 1048576 B under the value at ready; the run's maximum (rowid 18) came 170 ms before
        JsonNode late = analyze("--instant", "ready=2025-01-09T08:16:16.516Z", db);
        JsonNode peak = entry(late, "device_peak");
        assertThat(peak.get("bytes").asLong()).isEqualTo(2466983936L);
        assertThat(peak.get("sources").get(0).get("line").asInt()).isEqualTo(27);
        assertThat(peak.get("note").asText()).contains("the whole run's maximum came BEFORE ready: 2.30 GiB",
                "170 ms before ready", "row 18 \"2468032512\"");
        JsonNode act = entry(late, "activation_peak_under_load");
        assertThat(act.get("bytes").asLong()).isEqualTo(-1048576L);
        assertThat(act.get("note").asText()).contains("did not grow under load");
    }

    @Test
    void devicesTheExportLacksAreNamed() throws Exception {
        JsonNode r = analyze("--tp", "2", Corpus.file(MODULES).toString());
        assertThat(r.get("incomplete_reasons").toString()).contains("the msprof export has no data for device(s) [1]");
        JsonNode d1 = r.get("devices").get(1);
        assertThat(d1.get("checks").toString()).contains("no msprof data for device 1");
    }

    @Test
    void hostRowsGoToProcessLevelNeverIntoADevice() throws Exception {
        // static_op_mem of the msinsight server export: Device_id "host"; the TOTAL rows of graphs
        // 0 and 1 are 17210.5 KB = 17623552 B and 19910.5 KB = 20388352 B (truth.json)
        JsonNode r = analyze(Corpus.file(MODULES).toString(), Corpus.file("msprof/msinsight_server_rank1_static_op_mem.csv").toString());
        List<Long> bytes = new ArrayList<>();
        for (JsonNode p : r.get("process_level")) {
            assertThat(p.get("component").asText()).isEqualTo("static_graph");
            assertThat(p.get("confidence").asText()).isEqualTo("measured");
            bytes.add(p.get("bytes").asLong());
        }
        assertThat(bytes).containsExactlyInAnyOrder(17623552L, 20388352L);
        assertThat(r.get("devices")).hasSize(1);
        assertThat(r.get("devices").get(0).toString()).doesNotContain("17623552");
    }

    @Test
    void aSymbolicLinkOutOfTheRunInsideAnExportIsRefused(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path export = java.nio.file.Files.createDirectories(dir.resolve("evidence/PROF_000001_x/mindstudio_profiler_output"));
        java.nio.file.Files.createSymbolicLink(export.resolve("npu_module_mem_1.csv"), Corpus.file(MODULES));
        java.nio.file.Files.writeString(dir.resolve("run.json"),
                "{\"schema\": \"hbm-ledger/run/1\", \"evidence\": [{\"file\": \"evidence/PROF_000001_x\"}]}");
        CliRun r = CliRun.of("analyze", "--no-write", dir.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("npu_module_mem_1.csv resolves through a symbolic link", "outside the run directory");
        assertThat(r.out()).isEmpty();
    }

    private static List<String> checks(JsonNode r) {
        List<String> out = new ArrayList<>();
        r.get("devices").get(0).get("checks").forEach(c -> out.add(c.get("name").asText() + "=" + c.get("status").asText()));
        return out;
    }

    private static String detail(JsonNode r, String name) {
        for (JsonNode c : r.get("devices").get(0).get("checks")) {
            if (c.get("name").asText().equals(name)) {
                return c.get("detail").asText();
            }
        }
        return "";
    }

    /**
     * The corpus msprof_0.db holds only NPU_OP_MEM (494 rows, not read: no contract quantity) and
     * no memory table: named alone, it gives nothing to attribute, so exit 2 as for a vLLM log
     * without memory lines (QA: it gave exit 0 and a ledger of unknowns).
     */
    @Test
    void anMsprofFileWithoutMemoryRowsAloneIsNothingToAttribute() {
        CliRun r = CliRun.of("analyze", Corpus.file("msprof/msinsight_full_db_msprof_0.db").toString(), "--no-write");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("nothing to attribute", "the msprof files hold no memory rows",
                "no memory table (NPU_MEM, NPU_MODULE_MEM, MEMORY_RECORD, OP_MEMORY) in this database");
        assertThat(r.out()).isEmpty();
    }
}

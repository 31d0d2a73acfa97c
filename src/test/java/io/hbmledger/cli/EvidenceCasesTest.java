package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Cases;
import io.hbmledger.testing.Corpus;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three user cases of ../shared/cases read through {@code hbm-ledger evidence}: every file
 * but case.md is accepted (exit 0) and every machine-output block in them is read. Values
 * worked out by hand from the files (MiB x 1,048,576; GiB x 2^30), as case.md states them.
 */
class EvidenceCasesTest {

    private static final long MIB = 1L << 20;
    private static final String C8621 = "ascend-8621-four-instances-one-910b2";
    private static final String C8809 = "ascend-8809-910b4-32gb-vllm-plus-embedding-service";
    private static final String C13882 = "vllm-13882-rtx4060-8gb-negative-kv";

    @TempDir
    Path tmp;

    private static JsonNode evidence(Path... files) throws Exception {
        List<String> args = new ArrayList<>(List.of("evidence", "--format", "json"));
        for (Path f : files) {
            args.add(f.toString());
        }
        CliRun r = CliRun.of(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        return new ObjectMapper().readTree(r.out());
    }

    private static JsonNode obs(JsonNode file, String quantity, String device) {
        for (JsonNode o : file.path("observations")) {
            if (o.path("quantity").asText().equals(quantity)
                    && (device == null || device.equals(o.path("device").asText()))) {
                return o;
            }
        }
        throw new AssertionError(quantity + " on " + device + " not in " + file.path("path"));
    }

    @Test
    void ascend8621EveryFileIsReadWithTheValuesOfTheCase() throws Exception {
        JsonNode out = evidence(Cases.file(C8621, "npu-smi.txt"), Cases.file(C8621, "engine-error-4th-instance.log"),
                Cases.file(C8621, "description-excerpt.md"));
        JsonNode smi = out.path("files").get(0);
        assertThat(smi.path("format").asText()).isEqualTo("npu-smi-info");
        // line 9: NPU 0 59872 / 65536 MiB; line 12: NPU 1 58503 MiB
        assertThat(obs(smi, "hbm_used", "npu:0/chip:0").path("bytes").asLong()).isEqualTo(59872 * MIB);
        assertThat(obs(smi, "hbm_used", "npu:0/chip:0").path("line").asInt()).isEqualTo(9);
        assertThat(obs(smi, "hbm_total", "npu:0/chip:0").path("bytes").asLong()).isEqualTo(65536 * MIB);
        assertThat(obs(smi, "hbm_used", "npu:1/chip:0").path("bytes").asLong()).isEqualTo(58503 * MIB);
        JsonNode log = out.path("files").get(1);
        // line 13: free 27.18 of 60.96 GiB at start, 0.9 x 60.96 = 54.86 GiB asked
        assertThat(obs(log, "free_memory_at_start", null).path("bytes").asLong()).isEqualTo(Math.round(27.18 * (1L << 30)));
        assertThat(obs(log, "total_memory", null).path("bytes").asLong()).isEqualTo(Math.round(60.96 * (1L << 30)));
        assertThat(obs(log, "instance_budget", null).path("bytes").asLong()).isEqualTo(Math.round(54.86 * (1L << 30)));
        assertThat(obs(log, "memory_utilization", null).path("value").asDouble()).isEqualTo(0.9);
        // the user's own words: one line of prose naming --gpu-memory-utilization, whose four
        // settings (0.2, 0.45, 0.70, 0.9 in start order) are read as stated, not the model's "0.6B"
        JsonNode prose = out.path("files").get(2);
        assertThat(prose.path("format").asText()).isEqualTo("pasted-text");
        assertThat(prose.path("parts").get(0).path("format").asText()).isEqualTo("user-statement");
        List<Double> stated = new java.util.ArrayList<>();
        prose.path("observations").forEach(o -> stated.add(o.path("value").asDouble()));
        assertThat(stated).containsExactly(0.2, 0.45, 0.70, 0.9);
    }

    @Test
    void ascend8809EveryFileIsReadWithTheValuesOfTheCase() throws Exception {
        JsonNode out = evidence(Cases.file(C8809, "npu-smi.txt"), Cases.file(C8809, "resolution-comment-excerpt.md"));
        JsonNode smi = out.path("files").get(0);
        // line 9: NPU 0 28220 / 32768 MiB (4548 MiB free); line 12: NPU 1 28045 / 32768 MiB
        assertThat(obs(smi, "hbm_used", "npu:0/chip:0").path("bytes").asLong()).isEqualTo(28220 * MIB);
        assertThat(obs(smi, "hbm_total", "npu:0/chip:0").path("bytes").asLong()).isEqualTo(32768 * MIB);
        assertThat(obs(smi, "hbm_used", "npu:1/chip:0").path("bytes").asLong()).isEqualTo(28045 * MIB);
        assertThat(obs(smi, "hbm_used", "npu:1/chip:0").path("line").asInt()).isEqualTo(12);
        // the comment holds two shell scripts (docker run, run.sh): no tool output; run.sh's environment is read
        // (line 38: export PYTORCH_NPU_ALLOC_CONF="expandable_segments:True"), the docker run's cards too; its
        // first line names the embedding server that shares the cards, the image tag as written
        JsonNode md = out.path("files").get(1);
        assertThat(md.path("format").asText()).isEqualTo("pasted-text");
        List<String> parts = new ArrayList<>();
        md.path("parts").forEach(p -> parts.add(p.path("first_line").asInt() + "-" + p.path("last_line").asInt()
                + " " + p.path("format").asText()));
        // lines 7-31: the docker run of the vLLM image, its cards on lines 12-19; lines 37-44: run.sh, its environment
        assertThat(parts).containsExactly("1-2 user-statement", "4-4 prose", "7-31 container-command", "34-34 prose",
                "37-44 environment");
        JsonNode alloc = obs(md, "expandable_segments", null);
        assertThat(alloc.path("value").asDouble()).isEqualTo(1.0);
        assertThat(alloc.path("line").asInt()).isEqualTo(38);
        assertThat(alloc.path("text").asText()).isEqualTo("expandable_segments:True");
        assertThat(alloc.path("component").asText()).isEqualTo("PYTORCH_NPU_ALLOC_CONF");
        assertThat(obs(md, "other_service", null).path("text").asText()).isEqualTo("mis-tei:7.2.RC1-800I-A2-aarch64");
        assertThat(obs(md, "other_service", null).path("line").asInt()).isEqualTo(1);
        // line 1: "镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后解决", the reporter's fix
        assertThat(obs(md, "rollback_fix", null).path("text").asText()).isEqualTo("mis-tei:7.2.RC1-800I-A2-aarch64");
        assertThat(obs(md, "rollback_fix", null).path("component").asText()).isEqualTo("MIS-TEI (text-embeddings-inference)");
        List<String> cards = new ArrayList<>();
        md.path("observations").forEach(o -> {
            if (o.path("quantity").asText().equals("container_device")) {
                cards.add(o.path("line").asInt() + ":" + o.path("value").asInt() + ":" + o.path("component").asText());
            }
        });
        assertThat(cards).containsExactly("12:0:vLLM", "13:1:vLLM", "14:2:vLLM", "15:3:vLLM", "16:4:vLLM", "17:5:vLLM",
                "18:6:vLLM", "19:7:vLLM");
    }

    @Test
    void vllm13882StartupLogGivesTheReportedFigures() throws Exception {
        JsonNode log = evidence(Cases.file(C13882, "startup.log")).path("files").get(0);
        // line 4: weights 5.20 GiB, activation peak 1.42 GiB, KV -1.05 GiB; line 5: 0 GPU blocks
        assertThat(obs(log, "kv_cache_available", null).path("bytes").asLong()).isEqualTo(Math.round(-1.05 * (1L << 30)));
        assertThat(obs(log, "activation_peak", null).path("bytes").asLong()).isEqualTo(Math.round(1.42 * (1L << 30)));
        assertThat(obs(log, "gpu_blocks", null).path("value").asInt()).isZero();
    }

    @Test
    void standardInputIsReadAsAFile() throws Exception {
        InputStream saved = System.in;
        try {
            System.setIn(new ByteArrayInputStream(Files.readAllBytes(Cases.file(C8621, "npu-smi.txt"))));
            CliRun r = CliRun.of("evidence", "-");
            assertThat(r.exit()).as(r.err()).isZero();
            // 59872 MiB = 62,780,342,272 B on line 9, shown as "-"
            assertThat(r.out()).startsWith("-  [npu-smi-info]  4 observations")
                    .contains("line 9   hbm_used   58.47 GiB (62780342272 B)  \"59872\"  device=npu:0/chip:0");
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void standardInputNamedTwiceIsNamedAsSuch() throws Exception {
        InputStream saved = System.in;
        try {
            System.setIn(new ByteArrayInputStream(Files.readAllBytes(Cases.file(C8621, "npu-smi.txt"))));
            CliRun r = CliRun.of("evidence", "-", "-");
            // the second "-" said "cannot read: stream closed"
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).isEqualTo("hbm-ledger: -: standard input is named a second time; it can be read only once:"
                    + " name - once, or save each input to a file and name the files" + System.lineSeparator());
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void analyzeRefusesStandardInputNamedTwiceAsEvidenceDoes() throws Exception {
        InputStream saved = System.in;
        try {
            System.setIn(new ByteArrayInputStream(Files.readAllBytes(Cases.file(C8621, "npu-smi.txt"))));
            CliRun r = CliRun.of("analyze", "--no-write", "-", "-");
            // it read the table from the first "-", skipped the second as "the file is empty" and
            // printed a ledger with exit 0
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).isEqualTo("hbm-ledger: -: standard input is named a second time; it can be read only once:"
                    + " name - once, or save each input to a file and name the files" + System.lineSeparator());
            // named once, the same table gives NPU 0's 59872 of 65536 MiB: 58.47 of 64.00 GiB, 5.53 GiB free
            System.setIn(new ByteArrayInputStream(Files.readAllBytes(Cases.file(C8621, "npu-smi.txt"))));
            CliRun once = CliRun.of("analyze", "--no-write", "-");
            assertThat(once.exit()).as(once.err()).isZero();
            assertThat(once.out()).containsPattern("npu:0/chip:0 +0 +64\\.00 +58\\.47 +\\? +5\\.53");
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void aPipeSaysHowToGiveItsOutput() throws Exception {
        // what a shell's process substitution names: hbm-ledger evidence <(ssh host npu-smi info)
        Path fifo = tmp.resolve("npu-smi.fifo");
        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0,
                "mkfifo is needed to make a pipe");
        CliRun r = CliRun.of("evidence", Cases.file(C8621, "npu-smi.txt").toString(), fifo.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        // it said "found a directory or special file; check the path"
        assertThat(r.err()).contains(fifo + ": expected a regular file, found a special file (a pipe such as <(...), a device"
                + " or a socket), which is not read: pipe it into - (standard input) or save it to a file first");
    }

    @Test
    void anUnexportedProfDirectoryNamesTheExportCommand() throws Exception {
        Path prof = Files.createDirectories(tmp.resolve("profiling/PROF_000001_20250101_abc/device_0/data"));
        CliRun r = CliRun.of("evidence", tmp.resolve("profiling").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("the profile was not exported",
                "msprof --export=on --output=" + prof.getParent().getParent());
    }

    @Test
    void filesBesideAFoldersExportAreReadWithIt() throws Exception {
        // a user's folder: the PROF_ export and the server log beside it; evidence DIR (and analyze
        // DIR, by the same rule) read the export only, the log dropped with at most a note
        Path out = Files.createDirectories(tmp.resolve("run/PROF_000001_x/mindstudio_profiler_output"));
        Files.writeString(out.resolve("npu_module_mem_0.csv"), "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
                + "0,HCCL,1000.000\t,2048,NPU:0\n");
        Files.copy(Corpus.file("vllm-log/vllm-38820_worker_tp0_model_loading_GiB_memory_and.log"), tmp.resolve("run/server.log"));
        CliRun r = CliRun.of("evidence", tmp.resolve("run").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("npu_module_mem_0.csv  [msprof-csv]  1 observation")
                .contains(tmp.resolve("run/server.log") + "  [vllm-log]");
        assertThat(r.err()).doesNotContain("not read");
        // analyze reads both: HCCL 2048 KiB from the export, the weights from the log
        CliRun a = CliRun.of("analyze", "--no-write", "--format", "json", tmp.resolve("run").toString());
        assertThat(a.exit()).as(a.err()).isZero();
        JsonNode npu0 = new ObjectMapper().readTree(a.out()).path("devices").get(0);
        assertThat(AnalyzeFindingsTest.entry(npu0, "hccl").get("bytes").asLong()).isEqualTo(2048L * 1024);
        assertThat(AnalyzeFindingsTest.entry(npu0, "weights").toString()).contains("server.log");
    }

    @Test
    void filesBesideAnExportInItsOwnFolderAreNamedNotDroppedWithoutAWord() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("PROF_000001_x/mindstudio_profiler_output"));
        Files.writeString(out.resolve("npu_module_mem_0.csv"), "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
                + "0,HCCL,1000.000\t,2048,NPU:0\n");
        Files.writeString(tmp.resolve("PROF_000001_x/notes.txt"), "profiled with msprof --sys-hardware-mem=on\n");
        CliRun r = CliRun.of("evidence", tmp.resolve("PROF_000001_x").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains(tmp.resolve("PROF_000001_x") + ": 1 file beside the msprof export not read (notes.txt):"
                + " name it to read it");
    }

    @Test
    void aProfDirectoryStandsForItsExportedFiles() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("PROF_000001_x/mindstudio_profiler_output"));
        Files.writeString(out.resolve("npu_module_mem_0.csv"), "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
                + "0,HCCL,1000.000\t,2048,NPU:0\n0,HCCL,2000.000\t,4096,NPU:0\n");
        Files.createDirectories(tmp.resolve("PROF_000001_x/device_0/data"));
        CliRun r = CliRun.of("evidence", "--format", "json", tmp.resolve("PROF_000001_x").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode f = new ObjectMapper().readTree(r.out()).path("files").get(0);
        assertThat(f.path("path").asText()).endsWith("npu_module_mem_0.csv");
        // max 4096 KiB = 4,194,304 B on data row 2
        assertThat(obs(f, "module_reserved_peak", "npu:0").path("bytes").asLong()).isEqualTo(4_194_304L);
    }
}

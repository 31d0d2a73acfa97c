package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled examples, analysed end to end through the command line, against ledgers worked
 * out by hand from the example files. Every figure below is derived in the comment next to it
 * from the line it comes from; npu-smi "MB" is MiB (x 1048576), vLLM "GB"/"GiB" is 2^30 bytes.
 * The examples are copied to a temporary directory so that report.json is not written into the
 * repository. They are part of the repository, so these tests run on a fresh clone too.
 */
class ExamplesTest {

    private static final long MIB = 1L << 20;
    private final ObjectMapper mapper = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path copy(String example) throws IOException {
        Path from = Path.of("examples", example);
        Path to = tmp.resolve(example);
        return io.hbmledger.testing.TestFiles.copyTree(from, to);
    }

    private static JsonNode entry(JsonNode device, String component) {
        for (JsonNode e : device.get("entries")) {
            if (e.get("component").asText().equals(component)) {
                return e;
            }
        }
        throw new AssertionError("no " + component + " in " + device);
    }

    private static JsonNode check(JsonNode device, String name) {
        for (JsonNode c : device.get("checks")) {
            if (c.get("name").asText().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no check " + name + " in " + device);
    }

    /*
     * examples/a3-llama3.1-8b-eagle3, worked by hand (device 0 = npu-smi "NPU 0 / Chip 0 / Phy-ID 0";
     * run.json: rank 0 on device 0, npu-smi taken idle = baseline, no sample at ready):
     *   capacity        npu-smi-idle.txt:9 "3412 / 65536"   65536 MiB x 1048576       = 68719476736 B (64.00 GiB)
     *   used at ready   no sample                           unknown                   -> residual unknown
     *   driver_baseline npu-smi-idle.txt:9                  3412 MiB x 1048576        =  3577741312 B ( 3.33 GiB)
     *   weights         vllm-startup.log:46 "15.7847 GB"    round(15.7847 x 2^30)     = 16948692569 B (15.78 GiB)
     *   kv_cache        vllm-startup.log:47 "Available memory: 34184553369"          = 34184553369 B (31.84 GiB)
     *   profile rest    :8 u=0.8, :47 total 65464696832:
     *                   floor(0.8 x 65464696832 - 34184553369) = floor(18187204096.6) = 18187204096 (peak)
     *                   18187204096 - 16948692569                                      =  1238511527 B ( 1.15 GiB), not counted
     *   counted sum     3577741312 + 16948692569 + 34184553369                        = 54710987250 B (50.95 GiB)
     *   total vs capacity 68719476736 - 65464696832 = 3254779904 B (3.03 GiB)
     */
    @Test
    void a3Llama8bEagle3() throws Exception {
        Path run = copy("a3-llama3.1-8b-eagle3");
        CliRun r = CliRun.of("analyze", run.toString(), "--format", "json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode rep = mapper.readTree(r.out());
        assertThat(rep.get("status").asText()).isEqualTo("incomplete");
        assertThat(rep.get("incomplete_reasons").toString()).contains("no msprof evidence in the run");
        assertThat(rep.get("devices")).hasSize(1);
        JsonNode d = rep.get("devices").get(0);
        assertThat(d.get("device").asText()).isEqualTo("npu:0/chip:0");
        assertThat(d.get("device_id").asInt()).isZero();
        assertThat(d.get("moment").asText()).isEqualTo("ready");
        assertThat(d.get("capacity_bytes").asLong()).isEqualTo(65536 * MIB);
        assertThat(d.get("capacity_source").get("line").asInt()).isEqualTo(9);
        assertThat(d.get("used_bytes").isNull()).isTrue();
        assertThat(d.get("residual_bytes").isNull()).isTrue();
        JsonNode base = entry(d, "driver_baseline");
        assertThat(base.get("bytes").asLong()).isEqualTo(3412 * MIB).isEqualTo(3577741312L);
        assertThat(base.get("confidence").asText()).isEqualTo("measured");
        assertThat(base.get("sources").get(0).get("file").asText()).isEqualTo("evidence/npu-smi-idle.txt");
        assertThat(base.get("sources").get(0).get("line").asInt()).isEqualTo(9);
        JsonNode w = entry(d, "weights");
        assertThat(w.get("bytes").asLong()).isEqualTo(16948692569L);
        assertThat(w.get("confidence").asText()).isEqualTo("reported");
        assertThat(w.get("sources").get(0).get("line").asInt()).isEqualTo(46);
        JsonNode kv = entry(d, "kv_cache");
        assertThat(kv.get("bytes").asLong()).isEqualTo(34184553369L);
        assertThat(kv.get("sources").get(0).get("line").asInt()).isEqualTo(47);
        JsonNode rest = entry(d, "activation_peak_and_non_torch");
        assertThat(rest.get("bytes").asLong()).isEqualTo(1238511527L);
        assertThat(rest.get("confidence").asText()).isEqualTo("inferred");
        assertThat(rest.get("counted").asBoolean()).isFalse();
        for (String unknown : new String[] {"graph_pool", "hccl", "cann_runtime", "other_processes"}) {
            assertThat(entry(d, unknown).get("bytes").isNull()).as(unknown).isTrue();
            assertThat(entry(d, unknown).get("confidence").asText()).isEqualTo("unknown");
        }
        assertThat(d.get("counted_bytes").asLong()).isEqualTo(54710987250L);
        assertThat(check(d, "vllm_total_vs_capacity").get("detail").asText()).contains("3.03 GiB");
        // report.json beside run.json is the same document
        assertThat(mapper.readTree(Files.readString(run.resolve("report.json")))).isEqualTo(rep);
        // and it validates against the published schema
        assertThat(io.hbmledger.report.ReportSchemaTestAccess.validate(r.out())).isEmpty();

        // The detail view: every figure with its source and confidence, unknown spelled out.
        CliRun t = CliRun.of("analyze", run.toString(), "--no-write", "--detail");
        assertThat(t.out()).containsPattern("weights\\s+15\\.78\\s+reported\\s+evidence/vllm-startup\\.log:46 \"15\\.7847 GB\"")
                .containsPattern("used\\s+unknown\\s+unknown")
                .containsPattern("graph_pool\\s+unknown\\s+unknown");
    }

    /*
     * The same files given directly, with the run's facts as options, give the same ledger.
     */
    @Test
    void a3AsAFileList() throws Exception {
        Path npu = Corpus.file("npu-smi/vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt");
        Path log = Corpus.file("vllm-log/vllm-ascend-2667_A3_llama3.1-8B_eagle3_v1_startup.log");
        CliRun r = CliRun.of("analyze", npu.toString(), log.toString(), "--tp", "1", "--devices", "0",
                "--moment", npu.getFileName() + "=baseline", "--format", "json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode d = mapper.readTree(r.out()).get("devices").get(0);
        assertThat(entry(d, "driver_baseline").get("bytes").asLong()).isEqualTo(3577741312L);
        assertThat(entry(d, "weights").get("bytes").asLong()).isEqualTo(16948692569L);
        assertThat(entry(d, "kv_cache").get("bytes").asLong()).isEqualTo(34184553369L);
        assertThat(d.get("counted_bytes").asLong()).isEqualTo(54710987250L);
    }

    /*
     * examples/910b2c-deepseek-r1-tp16-oom, worked by hand. Rank i on device i (run.json); 910B
     * tables have no Phy-ID, so device i = npu-smi "NPU i / Chip 0". The sample and the log are
     * both at the failure (moment oom).
     * Failed device 15 (vllm-oom.log:16 "Tried to allocate 17.50 GiB (NPU 15; 60.97 GiB total
     * capacity; 53.74 GiB already allocated; ...; 5.96 GiB free; 54.36 GiB reserved ..."):
     *   capacity          npu-smi-after-oom.txt:54 "59351/ 65536"  65536 MiB    = 68719476736 B
     *   used              npu-smi-after-oom.txt:54                 59351 MiB    = 62234034176 B (57.96 GiB)
     *   torch_allocated   53.74 GiB x 2^30 (rounded)                            = 57702885622 B (53.74 GiB)
     *   allocator_cache   54.36 GiB -> 58368605553 B; - 57702885622             =   665719931 B ( 0.62 GiB)
     *   server_processes  npu-smi-after-oom.txt:89 pid 418714 56063 MiB        = 58786316288 B (54.75 GiB), not counted
     *   other_processes   no other row on NPU 15                                =           0 B, measured
     *   outside_processes 62234034176 - 58786316288                             =  3447717888 B ( 3.21 GiB)
     *   residual          62234034176 - (57702885622 + 665719931 + 0 + 3447717888) = 417710735 B (0.39 GiB)
     *   out of memory     18790481920 - 6399501271 = 12390980649 B short (11.54 GiB)
     * Device 0 (no torch figures; server memory not split):
     *   used 59356 MiB = 62239277056 B; server pid 418635 56057 MiB = 58780024832 B;
     *   outside 62239277056 - 58780024832 = 3459252224 B (3.22 GiB); residual 0 by construction.
     */
    @Test
    void deepseekR1Tp16Oom() throws Exception {
        Path run = copy("910b2c-deepseek-r1-tp16-oom");
        CliRun r = CliRun.of("analyze", run.toString(), "--format", "json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode rep = mapper.readTree(r.out());
        assertThat(rep.get("status").asText()).isEqualTo("failed");
        assertThat(rep.get("incomplete_reasons").get(0).asText())
                .isEqualTo("the server ran out of memory on npu:15/chip:0 (evidence/vllm-oom.log:16)");
        assertThat(rep.get("devices")).hasSize(16);
        for (JsonNode dev : rep.get("devices")) {
            assertThat(dev.get("used_bytes").isNull()).as(dev.get("device").asText()).isFalse();
            assertThat(dev.get("moment").asText()).isEqualTo("oom");
        }
        JsonNode d = rep.get("devices").get(15);
        assertThat(d.get("device").asText()).isEqualTo("npu:15/chip:0");
        assertThat(d.get("capacity_bytes").asLong()).isEqualTo(68719476736L);
        assertThat(d.get("used_bytes").asLong()).isEqualTo(59351 * MIB).isEqualTo(62234034176L);
        assertThat(d.get("used_source").get("line").asInt()).isEqualTo(54);
        assertThat(entry(d, "torch_allocated").get("bytes").asLong()).isEqualTo(57702885622L);
        assertThat(entry(d, "torch_allocated").get("confidence").asText()).isEqualTo("reported");
        assertThat(entry(d, "allocator_cache").get("bytes").asLong()).isEqualTo(665719931L);
        JsonNode server = entry(d, "server_processes");
        assertThat(server.get("bytes").asLong()).isEqualTo(56063 * MIB).isEqualTo(58786316288L);
        assertThat(server.get("sources").get(0).get("line").asInt()).isEqualTo(89);
        assertThat(server.get("counted").asBoolean()).isFalse();
        assertThat(entry(d, "other_processes").get("bytes").asLong()).isZero();
        assertThat(entry(d, "other_processes").get("confidence").asText()).isEqualTo("measured");
        assertThat(entry(d, "outside_processes").get("bytes").asLong()).isEqualTo(3447717888L);
        assertThat(entry(d, "driver_baseline").get("bytes").isNull()).isTrue();
        assertThat(d.get("residual_bytes").asLong()).isEqualTo(417710735L);
        assertThat(check(d, "ledger_sum_vs_used").get("status").asText()).isEqualTo("pass");
        assertThat(check(d, "out_of_memory").get("status").asText()).isEqualTo("fail");
        assertThat(check(d, "out_of_memory").get("detail").asText()).contains("short by 11.54 GiB");

        JsonNode d0 = rep.get("devices").get(0);
        assertThat(d0.get("used_bytes").asLong()).isEqualTo(59356 * MIB).isEqualTo(62239277056L);
        assertThat(entry(d0, "server_processes").get("bytes").asLong()).isEqualTo(56057 * MIB);
        assertThat(entry(d0, "outside_processes").get("bytes").asLong()).isEqualTo(3459252224L);
        assertThat(d0.get("residual_bytes").asLong()).isZero();
        assertThat(io.hbmledger.report.ReportSchemaTestAccess.validate(r.out())).isEmpty();
    }
}

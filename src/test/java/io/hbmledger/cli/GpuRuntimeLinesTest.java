package io.hbmledger.cli;

import static io.hbmledger.cli.AnalyzeFindingsTest.device;
import static io.hbmledger.cli.AnalyzeFindingsTest.entry;
import static io.hbmledger.cli.AnalyzeFindingsTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU lines of a TP 2 NVIDIA run: nvidia-smi CSV as collect writes it (hand-made, idle and
 * ready), vLLM V1 worker lines and NCCL_DEBUG=INFO lines in NCCL's own shape; every expected
 * figure worked out by hand below.
 */
class GpuRuntimeLinesTest {

    @TempDir
    Path dir;

    private static final String GPUS = "index, uuid, pci.bus_id, memory.used [MiB], memory.total [MiB], memory.reserved [MiB]\n";
    private static final String APPS = "gpu_uuid, pid, process_name, used_gpu_memory [MiB]\n";

    private static String worker(int tp) {
        String p = "(VllmWorker TP" + tp + " pid=" + (4181 + tp) + ") INFO 06-10 09:12:1" + tp + " ";
        return p + "[gpu_model_runner.py:1316] Model loading took 7.4800 GiB and 3.000000 seconds\n"
                + p + "[gpu_worker.py:244] Memory profiling takes 0.19 seconds. Total non KV cache memory: 9.06GiB;"
                + " torch peak memory increase: 1.26GiB; non-torch forward increase memory: 0.32GiB; weights memory: 7.48GiB.\n"
                + p + "[gpu_worker.py:257] Available KV cache memory: 10.00 GiB\n"
                + p + "[gpu_model_runner.py:3178] Graph capturing finished in 5 secs, took 0.41 GiB\n";
    }

    private static String nccl(int tp, boolean alloc) {
        String p = "gpu-node-1:" + (4181 + tp) + ":" + (4230 + tp) + " [" + tp + "] NCCL INFO ";
        return p + "NCCL_BUFFSIZE set by environment to 8388608.\n"
                + p + "2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer\n"
                + (alloc ? p + "Allocated shareable buffer 0x7f3a40000000 size 142606336 ipcDesc 0x7f3a3c0016d0\n"
                        + p + "Allocated shareable buffer 0x7f3a50000000 size 142606336 ipcDesc 0x7f3a3c0016e0\n" : "")
                + p + "comm 0x5a08c708f110 rank " + tp + " nranks 2 cudaDev " + tp + " nvmlDev " + tp
                + " busId 18000 commId 0x49bbd7790311d5eb - Init COMPLETE\n";
    }

    private JsonNode analyze(boolean alloc) throws Exception {
        Path idle = dir.resolve("idle.csv");
        Files.writeString(idle, GPUS + "0, GPU-a0, 00000000:18:00.0, 0, 81559, 469\n1, GPU-a1, 00000000:2A:00.0, 0, 81559, 469\n" + APPS);
        Path ready = dir.resolve("ready.csv");
        Files.writeString(ready, GPUS + "0, GPU-a0, 00000000:18:00.0, 20000, 81559, 469\n1, GPU-a1, 00000000:2A:00.0, 20000, 81559, 469\n"
                + APPS + "GPU-a0, 4181, python3, 20000\nGPU-a1, 4182, python3, 20000\n");
        Path log = dir.resolve("serve.log");
        Files.writeString(log, nccl(0, alloc) + nccl(1, alloc) + worker(0) + worker(1));
        return json(CliRun.of("analyze", idle.toString(), ready.toString(), log.toString(), "--tp", "2", "--devices", "0,1",
                "--moment", idle + "=baseline", "--moment", ready + "=ready", "--format", "json"));
    }

    @Test
    void ncclFromItsAllocationLinesCudaRuntimeAndDriverReserve() throws Exception {
        JsonNode r = analyze(true);
        for (int i = 0; i < 2; i++) {
            JsonNode d = device(r, i);
            // two P2P buffers of 142606336 B on this rank's [cudaDev] = 285212672 B (272 MiB), NCCL's own figure
            JsonNode nccl = entry(d, "nccl");
            assertThat(nccl.get("bytes").asLong()).isEqualTo(285212672L);
            assertThat(nccl.get("confidence").asText()).isEqualTo("reported");
            assertThat(nccl.get("counted").asBoolean()).isFalse();
            assertThat(nccl.get("note").asText()).contains("inside vLLM's non_torch");
            // server 20000 MiB = 20971520000 B - weights 7.48 GiB (8031588844) - KV 10.00 GiB (10737418240)
            // - graph 0.41 GiB (440234148) - non-torch 0.32 GiB (343597384) = 1418681384 B
            JsonNode cuda = entry(d, "cuda_runtime");
            assertThat(cuda.get("bytes").asLong()).isEqualTo(1418681384L);
            assertThat(cuda.get("confidence").asText()).isEqualTo("inferred");
            assertThat(cuda.get("counted").asBoolean()).isFalse();
            assertThat(cuda.get("arithmetic").asText()).startsWith("server_processes 20971520000 B").endsWith("= 1418681384 B (1.32 GiB)");
            // memory.reserved 469 MiB = 491782144 B, outside used
            JsonNode reserved = entry(d, "driver_reserved");
            assertThat(reserved.get("bytes").asLong()).isEqualTo(491782144L);
            assertThat(reserved.get("confidence").asText()).isEqualTo("measured");
            assertThat(reserved.get("counted").asBoolean()).isFalse();
            // the residual is unchanged by lines that are not counted: the same 1418681384 B
            assertThat(d.get("residual_bytes").asLong()).isEqualTo(1418681384L);
        }
        assertThat(r.toString()).doesNotContain("hccl").doesNotContain("cann_runtime").doesNotContain("msprof");
    }

    @Test
    void withoutAllocationLinesNcclIsAnEstimateFromChannelsAndBuffsize() throws Exception {
        JsonNode nccl = entry(device(analyze(false), 1), "nccl");
        // 2 coll channels x NCCL_BUFFSIZE 8388608 B = 16777216 B
        assertThat(nccl.get("bytes").asLong()).isEqualTo(16777216L);
        assertThat(nccl.get("confidence").asText()).isEqualTo("estimated");
        assertThat(nccl.get("counted").asBoolean()).isFalse();
        assertThat(nccl.get("arithmetic").asText()).isEqualTo("2 coll channels x NCCL_BUFFSIZE 8388608 B = 16777216 B (0.02 GiB)");
    }
}

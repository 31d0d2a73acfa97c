package io.hbmledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * bench/gpu-check in its simulated mode, as CI runs it: the script drives the GPU simulator
 * (hbm-sim, sim/bin/nvidia-smi), runs analyze on what it sampled, and must print PASS for the
 * allocation, the CUDA context and the free, and exit 0.
 */
class GpuCheckSimulatedTest {

    @Test
    void simulatedModePasses() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bench/gpu-check", "--simulated", "--mib", "96").redirectErrorStream(true);
        pb.environment().put("HBM_SIM_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().put("HBM_LEDGER_CLASSPATH", System.getProperty("java.class.path"));
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("under two minutes").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("gpu-check: PASS", "allocation alone (ready - context): ledger 96 MiB, expected 96 MiB",
                "CUDA context of pid", "ledger 520 MiB, expected 520 MiB", "freed: nvidia-smi lists pid").doesNotContain("FAIL");
    }
}

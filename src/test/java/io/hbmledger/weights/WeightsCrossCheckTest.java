package io.hbmledger.weights;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.safetensors.ModelDirectory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WeightsCrossCheckTest {

    @TempDir
    Path tmp;

    private static final long MIB = 1L << 20;

    @Test
    void aDrafterLoadedExplainsAFigureAboveThePlan() throws Exception {
        Checkpoint r1 = Checkpoint.from(ModelDirectory.scan(CorpusCheckpoints.deepseekR1(tmp)));
        ParallelLayout layout = new ParallelLayout(16, 1, 1, true);
        PlanOptions withMtp = new PlanOptions("auto", "auto", true, 128);
        // a worker that reports the plan with the MTP layer plus 40 MiB of buffers
        long reported = WeightsPlanner.plan(r1, layout, withMtp).perDeviceBytes() + 40 * MIB;

        WeightsCrossCheck.Result r = WeightsCrossCheck.compare(r1, layout, PlanOptions.defaults(), reported);

        assertThat(r.closest().reason()).isEqualTo("MTP drafter loaded (speculative decoding)");
        assertThat(r.closest().difference()).isEqualTo(40 * MIB);
        assertThat(r.difference()).isGreaterThan(1_000_000_000L); // the MTP layer's share is ~1.1 GB per device
    }

    @Test
    void aFloat32FigureIsNamed() throws Exception {
        Checkpoint llama = Checkpoint.from(ModelDirectory.scan(CorpusCheckpoints.llama70b(tmp)));
        ParallelLayout layout = ParallelLayout.tp(8);
        long f32 = WeightsPlanner.plan(llama, layout, new PlanOptions("float32", "auto", false, 128)).perDeviceBytes();

        WeightsCrossCheck.Result r = WeightsCrossCheck.compare(llama, layout, PlanOptions.defaults(), f32);

        assertThat(r.closest().reason()).isEqualTo("served in float32 (--dtype float32)");
        assertThat(r.closest().difference()).isZero();
        // planned at 16 bits: the float32 figure is about twice the plan
        assertThat(r.estimatedBytes() * 2).isBetween(f32 - 100 * MIB, f32 + 100 * MIB);
    }
}

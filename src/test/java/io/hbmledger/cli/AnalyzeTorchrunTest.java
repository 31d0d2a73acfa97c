package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A torchrun command pasted without any vllm serve: the deployment comes from the arguments the
 * script hands to vLLM. The command is the one in vLLM's examples/offline_inference/torchrun_dp_example.py
 * docstring; the weights line is a hand-written vLLM V1 line so that the run holds a memory figure.
 */
class AnalyzeTorchrunTest {

    @TempDir
    Path tmp;

    @Test
    void vllmsTorchrunExampleGivesTpDpAndItsRanks() throws Exception {
        Path paste = tmp.resolve("issue.md");
        Files.writeString(paste, """
                $ torchrun --nproc-per-node=8 examples/offline_inference/torchrun_dp_example.py \\
                    --tp-size=2 --pp-size=1 --dp-size=4 --enable-ep
                INFO 04-17 15:27:02 [gpu_model_runner.py:1329] Model loading took 7.1557 GiB and 3.71 seconds
                """);
        String out = CliRun.of("analyze", paste.toString(), "--no-write").out();
        // TP 2 x PP 1 x DP 4 = 8 ranks, as --nproc-per-node=8 starts
        assertThat(out).contains("deployment: TP 2  DP 4  devices [0, 1, 2, 3, 4, 5, 6, 7]", paste + ":2");
    }

    /** A script of the user's: its --tp-size is its own, so TP is not taken from it. */
    @Test
    void ownScriptsFlagNamesAreNotVllms() throws Exception {
        Path paste = tmp.resolve("issue.md");
        Files.writeString(paste, """
                torchrun --nproc-per-node=2 my_infer.py --tp-size 2 --gpu-memory-utilization 0.7
                INFO 04-17 15:27:02 [gpu_model_runner.py:1329] Model loading took 7.1557 GiB and 3.71 seconds
                """);
        String out = CliRun.of("analyze", paste.toString(), "--no-write").out();
        assertThat(out).doesNotContain("TP 2").contains("devices [0]");
    }
}

package io.hbmledger.evidence.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiParse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * nvidia-smi process rows quoted without the {@code Processes:} table around them. The row is laid
 * out under the process header of the corpus (localgpt #14, driver 531: {@code |  GPU   GI   CI
 * PID   Type   Process name   GPU Memory |}, 89 characters), values written by hand: 76038 MiB =
 * 76038 x 1048576 = 79,731,621,888 B.
 */
class NvidiaSmiHeaderlessProcessesTest {

    private static final String ROW =
            "|    0   N/A  N/A   2230356      C   python3                                   76038MiB |";

    private static boolean detected(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return new NvidiaSmiReader().detect(new FileHead("x.md", b, b.length)).filter(EvidenceFormat.NVIDIA_SMI::equals).isPresent();
    }

    @Test
    void aLoneProcessRowIsReadAsInferredProcessMemory() {
        String text = "This process holds the GPU before vLLM starts:\n" + ROW + "\n";
        assertThat(detected(text)).isTrue();
        SmiParse p = NvidiaSmiTableParser.parse(text);
        assertThat(p.observations()).singleElement().satisfies(o -> {
            assertThat(o.line()).isEqualTo(2);
            assertThat(o.quantity().contractName()).isEqualTo("process_memory");
            assertThat(o.bytes()).isEqualTo(79_731_621_888L);
            assertThat(o.context().device()).isEqualTo("gpu:0");
            assertThat(o.context().pid()).isEqualTo(2230356L);
            assertThat(o.context().processName()).isEqualTo("python3");
            assertThat(o.context().inferred()).isTrue();
        });
        assertThat(p.warnings()).singleElement().asString()
                .startsWith("line 2: nvidia-smi process rows without their 'Processes:' header (line 2)");
    }

    @Test
    void rowsOfOlderDriversWithoutGiAndCiAreReadToo() {
        // GPU PID Type Process name GPU Memory (drivers before 470): GPU 1, 12000 MiB
        SmiParse p = NvidiaSmiTableParser.parse("|    1     31337      C   /usr/bin/python3                 12000MiB |\n");
        assertThat(p.observations()).extracting(Observation::bytes, o -> o.context().device(), o -> o.context().pid())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(12000L << 20, "gpu:1", 31337L));
    }

    @Test
    void rowsThatAreNotProcessRowsOrHoldNoMemoryAreNotTaken() {
        // WDDM prints no per-process memory: nothing to read
        assertThat(detected("|    0   N/A  N/A      1234    C+G   C:\\Windows\\explorer.exe                    N/A      |\n"))
                .isFalse();
        // a type nvidia-smi does not print, a markdown table row
        assertThat(detected("|    0   N/A  N/A   2230356      X   python3   76038MiB |\n")).isFalse();
        assertThat(detected("| 0 | 2230356 | python3 | 76038 |\n")).isFalse();
    }
}

package io.hbmledger.evidence.npusmi;

import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.one;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, fault 4: an npu-smi table split by a blank line or a new frame (excerpts joined,
 * a long table cut by a terminal or an issue). Rows after the break are read with the last
 * header when their cell layout matches, with a warning. MB is MiB: bytes = MB x 1,048,576.
 */
class NpuSmiSplitTableTest {

    private static final long MIB = 1L << 20;

    private static final String HEADER = String.join("\n",
            "+---------------------------+---------------+----------------------------------------------------+",
            "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
            "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
            "+===========================+===============+====================================================+");

    @Test
    void rowsAfterABlankLineAndANewFrameUseTheHeaderAbove() {
        String text = String.join("\n",
                HEADER,
                "| 0     910B4               | OK            | 88.5        34                0    / 0             |",
                "| 0                         | 0000:C1:00.0  | 0           0    / 0          28220/ 32768         |",
                "+===========================+===============+====================================================+",
                "",
                "| 1     910B4               | OK            | 82.5        32                0    / 0             |",
                "| 0                         | 0000:C2:00.0  | 0           0    / 0          28045/ 32768         |",
                "+===========================+===============+====================================================+",
                "and the last one:",
                "+---------------------------+---------------+----------------------------------------------------+",
                "| 2     910B4               | OK            | 82.5        32                0    / 0             |",
                "| 0                         | 0000:C3:00.0  | 0           0    / 0          3197 / 32768         |",
                "+===========================+===============+====================================================+",
                "");
        SmiParse p = NpuSmiInfoParser.parse(text);
        // line 6: 28220 MiB on NPU 0; line 10 (after the blank line 8): 28045 MiB on NPU 1;
        // line 15 (after text and a new frame): 3197 MiB on NPU 2
        assertThat(one(p, "hbm_used", "npu:0/chip:0").bytes()).isEqualTo(28220 * MIB);
        Observation npu1 = one(p, "hbm_used", "npu:1/chip:0");
        assertThat(npu1.bytes()).isEqualTo(28045 * MIB);
        assertThat(npu1.line()).isEqualTo(10);
        Observation npu2 = one(p, "hbm_used", "npu:2/chip:0");
        assertThat(npu2.bytes()).isEqualTo(3197 * MIB);
        assertThat(npu2.line()).isEqualTo(15);
        assertThat(one(p, "hbm_total", "npu:2/chip:0").bytes()).isEqualTo(32768 * MIB);
        assertThat(p.warnings()).containsExactly(
                "line 9: table rows after a break (blank line, text or a new frame) without their own header;"
                        + " read with the chip table header above, whose cell layout they match",
                "line 14: table rows after a break (blank line, text or a new frame) without their own header;"
                        + " read with the chip table header above, whose cell layout they match");
    }

    @Test
    void rowsWithAnotherLayoutAreStillRefused() {
        String text = HEADER + "\n\n| 1     910B4  | OK  |\n| 0  | 0000:C2:00.0  |\n";
        SmiParse p = NpuSmiInfoParser.parse(text);
        assertThat(p.observations()).isEmpty();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 6: npu-smi table rows without their");
    }

    @Test
    void realTableSplitTwiceReadsAsTheWholeTable() throws Exception {
        List<String> lines = SmiLines.lines(Files.readString(
                Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt")));
        SmiParse whole = NpuSmiInfoParser.parse(lines);
        // split after line 25 (NPU 5's frame) by a blank line, after line 40 by a new frame's top
        // border, and the process table after its first row (line 59) by a blank line
        List<String> split = new ArrayList<>(lines);
        split.add(59, "");
        split.add(40, lines.get(1));
        split.add(40, "");
        split.add(25, "");
        SmiParse p = NpuSmiInfoParser.parse(split);
        assertThat(p.observations()).extracting(Observation::quantity, Observation::context, Observation::bytes)
                .containsExactlyElementsOf(whole.observations().stream()
                        .map(o -> org.assertj.core.groups.Tuple.tuple(o.quantity(), o.context(), o.bytes()))
                        .toList());
        // 16 NPUs x (hbm used + total) + the process rows
        assertThat(p.observations()).filteredOn(o -> o.quantity() == Quantity.HBM_USED).hasSize(16);
        assertThat(p.warnings()).hasSize(whole.warnings().size() + 3)
                .filteredOn(w -> w.contains("after a break")).hasSize(3);
    }
}

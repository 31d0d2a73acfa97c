package io.hbmledger.evidence.npusmi;

import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.all;
import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.one;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** {@code npu-smi info -t usages} key / value output. MB is MiB: bytes = MB x 1,048,576. */
class NpuSmiUsagesParserTest {

    private static final long MIB = 1L << 20;

    @Test
    void readsAtlas200IA2DdrOnlyBoard() throws IOException {
        SmiParse p = NpuSmiUsagesParser.parse(Files.readString(
                Corpus.file("npu-smi/hiascend-doc_atlas200IA2_info_t_usages_i0.txt")));
        // line 6: "Memory Capacity(MB) : 10810" -> 10810 x 1048576 = 11,335,106,560
        Observation cap = one(p, "memory_capacity", "npu:0/chip:0");
        assertThat(cap.bytes()).isEqualTo(11_335_106_560L);
        assertThat(cap.line()).isEqualTo(6);
        assertThat(cap.text()).isEqualTo("10810");
        // line 7: "Memory Usage Rate(%) : 35"
        Observation rate = one(p, "memory_usage_rate", "npu:0/chip:0");
        assertThat(rate.value()).isEqualTo(35.0);
        assertThat(rate.bytes()).isNull();
        assertThat(all(p, "hbm_capacity", null)).isEmpty();
        assertThat(all(p, "hbm_usage_rate", null)).isEmpty();
        assertThat(p.observations()).hasSize(2); // hugepages, AI core and bandwidth rates are not contract quantities
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void readsAtlasA3TwoChipsAndDropsThePlaceholderDdr() {
        // Key order and the literal DDR 0 of 910B / A3 follow print_chip_usages_info /
        // print_chip_memory_usages_info of npu-smi; tab-indented as the tool prints.
        String text = String.join("\r\n",
                "\tNPU ID                         : 4",
                "\tChip Count                     : 2",
                "",
                "\tChip ID                        : 0",
                "\tDDR Capacity(MB)               : 0",
                "\tDDR Usage Rate(%)              : 0",
                "\tDDR Hugepages Total(page)      : 0",
                "\tHBM Capacity(MB)               : 65536",
                "\tHBM Usage Rate(%)              : 5",
                "\tAicore Usage Rate(%)           : 0",
                "",
                "\tChip ID                        : 1",
                "\tDDR Capacity(MB)               : 0",
                "\tDDR Usage Rate(%)              : 0",
                "\tHBM Capacity(MB)               : 65536",
                "\tHBM Usage Rate(%)              : NA",
                "");
        SmiParse p = NpuSmiUsagesParser.parse(text);
        Observation cap0 = one(p, "hbm_capacity", "npu:4/chip:0");
        assertThat(cap0.bytes()).isEqualTo(65536 * MIB);
        assertThat(cap0.line()).isEqualTo(8);
        assertThat(one(p, "hbm_usage_rate", "npu:4/chip:0").value()).isEqualTo(5.0);
        assertThat(one(p, "hbm_capacity", "npu:4/chip:1").bytes()).isEqualTo(65536 * MIB);
        assertThat(all(p, "hbm_usage_rate", "npu:4/chip:1")).isEmpty(); // NA: absent
        assertThat(all(p, "memory_capacity", null)).isEmpty();
        assertThat(all(p, "memory_usage_rate", null)).isEmpty();
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void missingChipIdOnAMultiChipNpuIsNotGuessed() {
        String text = "NPU ID : 2\nChip Count : 2\nHBM Capacity(MB) : 65536\nHBM Usage Rate(%) : 7x\n";
        SmiParse p = NpuSmiUsagesParser.parse(text);
        Observation cap = one(p, "hbm_capacity", null);
        assertThat(cap.context().device()).isNull();
        assertThat(p.warnings()).hasSize(2);
        assertThat(p.warnings().get(0)).startsWith("line 3:").contains("no device");
        assertThat(p.warnings().get(1)).startsWith("line 4:").contains("7x");
    }
}

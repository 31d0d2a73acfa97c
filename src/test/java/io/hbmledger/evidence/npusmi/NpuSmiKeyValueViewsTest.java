package io.hbmledger.evidence.npusmi;

import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.all;
import static io.hbmledger.evidence.npusmi.NpuSmiInfoParserTest.one;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, faults 2 and 3: npu-smi key / value views that print no {@code NPU ID} line
 * ({@code -t usages -i 2 -c 0}, {@code -t memory}) and the one-line {@code -t proc-mem} form.
 * MB is MiB: bytes = MB x 1,048,576.
 */
class NpuSmiKeyValueViewsTest {

    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private EvidenceFile read(String text) throws Exception {
        Path p = dir.resolve("pasted.txt");
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return EvidenceReaders.all().read(p, "pasted.txt");
    }

    private static SmiParse parse(EvidenceFile f) {
        return new SmiParse(f.observations(), f.warnings());
    }

    @Test
    void oneChipUsagesAfterTheEchoedCommandTakeItsDevice() throws Exception {
        EvidenceFile f = read("$ npu-smi info -t usages -i 2 -c 0\n"
                + "\tMemory Capacity(MB)    : 7680\n"
                + "\tMemory Usage Rate(%)   : 12\n");
        assertThat(f.format().contractName()).isEqualTo("npu-smi-usages");
        // line 2: 7680 MiB = 7680 x 1048576 = 8,053,063,680 B on NPU 2 chip 0 (from -i 2 -c 0)
        Observation cap = one(parse(f), "memory_capacity", "npu:2/chip:0");
        assertThat(cap.bytes()).isEqualTo(8_053_063_680L);
        assertThat(cap.line()).isEqualTo(2);
        assertThat(one(parse(f), "memory_usage_rate", "npu:2/chip:0").value()).isEqualTo(12.0);
        assertThat(f.warnings()).isEmpty();
    }

    @Test
    void memoryViewWithoutCommandHasAnUnknownDevice() throws Exception {
        EvidenceFile f = read("DDR Capacity(MB)       : 0\n"
                + "DDR Clock Speed(MHz)   : 0\n"
                + "HBM Capacity(MB)       : 32768\n"
                + "HBM Clock Speed(MHz)   : 1600\n");
        assertThat(f.format().contractName()).isEqualTo("npu-smi-usages");
        // DDR 0 is the 910B placeholder (not reported); HBM 32768 MiB = 34,359,738,368 B, device unknown
        assertThat(f.observations()).singleElement().satisfies(o -> {
            assertThat(o.quantity().contractName()).isEqualTo("hbm_capacity");
            assertThat(o.bytes()).isEqualTo(32768 * MIB);
            assertThat(o.context().device()).isNull();
            assertThat(o.line()).isEqualTo(3);
        });
        assertThat(f.warnings()).singleElement().asString().startsWith("line 3: no 'NPU ID' / 'Chip ID' line")
                .contains("device is unknown");
    }

    @Test
    void realUsagesFileStillReadsItsDevice() throws Exception {
        Path real = Corpus.file("npu-smi/hiascend-doc_atlas200IA2_info_t_usages_i0.txt");
        EvidenceFile f = EvidenceReaders.all().read(real, "usages.txt");
        // the echoed '-i 0' and the 'NPU ID : 0 / Chip ID : 0' lines agree: line 6, 10810 MiB
        assertThat(one(parse(f), "memory_capacity", "npu:0/chip:0").bytes()).isEqualTo(10810 * MIB);
        assertThat(f.warnings()).isEmpty();
    }

    @Test
    void procMemOneLineFormWithTheEchoedChip() throws Exception {
        EvidenceFile f = read("[root@host ~]# npu-smi info -t proc-mem -i 0 -c 0\n"
                + "Process id:40188  Process name:VLLMWorker_TP  Process memory(MB):30511\n"
                + "Process id:3229095 Process name:                  Process memory(MB):48\n");
        assertThat(f.format().contractName()).isEqualTo("npu-smi-proc-mem");
        // line 2: 30511 MiB = 30511 x 1048576 = 31,993,102,336 B, pid 40188, name as the tool cut it
        Observation o = all(parse(f), "process_memory", "npu:0/chip:0").get(0);
        assertThat(o.bytes()).isEqualTo(31_993_102_336L);
        assertThat(o.context().pid()).isEqualTo(40188L);
        assertThat(o.context().processName()).isEqualTo("VLLMWorker_TP");
        assertThat(o.line()).isEqualTo(2);
        // line 3: an empty name is absent, not ""
        Observation unnamed = all(parse(f), "process_memory", "npu:0/chip:0").get(1);
        assertThat(unnamed.context().processName()).isNull();
        assertThat(unnamed.bytes()).isEqualTo(48 * MIB);
        assertThat(f.warnings()).isEmpty();
    }

    @Test
    void procMemOfAWholeNpuNamesEachChipAfterItsProcesses() {
        // without -c the tool prints each chip's processes, then its 'Chip ID' line
        String text = String.join("\n",
                "NPU ID                         : 3",
                "Chip Count                     : 2",
                "",
                "Process id:1976358 Process name:gunicorn           Process memory(MB):1336",
                "Process id:1673754 Process name:gunicorn           Process memory(MB):460",
                "Chip ID                        : 0",
                "",
                "No process in device.",
                "Chip ID                        : 1",
                "");
        SmiParse p = NpuSmiProcMemParser.parse(SmiLines.lines(text));
        assertThat(all(p, "process_memory", "npu:3/chip:0")).extracting(Observation::bytes)
                .containsExactly(1336 * MIB, 460 * MIB);
        // chip 1 has none: a measured 0 processes
        assertThat(one(p, "process_count", "npu:3/chip:1").value()).isEqualTo(0.0);
        assertThat(p.warnings()).isEmpty();
    }

    @Test
    void procMemWithoutAnyDeviceIsKeptAndSaysSo() {
        SmiParse p = NpuSmiProcMemParser.parse(SmiLines.lines(
                "Process id:40188  Process name:VLLMWorker_TP  Process memory(MB):30511\n"));
        assertThat(one(p, "process_memory", null).context().device()).isNull();
        assertThat(p.warnings()).singleElement().asString().startsWith("line 1: ").contains("device is unknown");
    }
}

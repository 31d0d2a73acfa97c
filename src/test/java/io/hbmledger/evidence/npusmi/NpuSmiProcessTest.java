package io.hbmledger.evidence.npusmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The process rows of npu-smi info tables, with the logical device each one is on (what collect checks). */
class NpuSmiProcessTest {

    @Test
    void readsProcessRowsOfA16NpuTable() throws Exception {
        // corpus vllm-ascend-264: process section, first row "| 0 0 | 418635 | vllm | 56057 |",
        // then rayNPURayWork rows; NPU 1 is pid 418709 (read off the file by hand)
        String text = Files.readString(Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt"));
        List<NpuSmiProcess> p = NpuSmiInfoParser.processes(text);
        assertThat(p.get(0)).isEqualTo(new NpuSmiProcess(0, 0, 0, 418635L, "vllm", 56057L << 20));
        assertThat(p.get(1)).isEqualTo(new NpuSmiProcess(1, 0, 1, 418709L, "rayNPURayWork", 56063L << 20));
    }

    @Test
    void anEmptyProcessNameAndNoRunningProcessesRows() throws Exception {
        // corpus vllm-ascend-312: one row "| 0 0 | 641248 | (blank) | 113 |", then "No running processes found" for NPU 1-7
        String text = Files.readString(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"));
        assertThat(NpuSmiInfoParser.processes(text)).containsExactly(new NpuSmiProcess(0, 0, 0, 641248L, "", 113L << 20));
    }

    @Test
    void phyIdColumnMapsChipsToLogicalDevices() throws Exception {
        // corpus vllm-ascend-2667 (A3, "Chip Phy-ID" header) lists no processes; a row for NPU 1
        // chip 1 is put in its place. The chip table of that file gives NPU 1 chip 1 Phy-ID 3.
        String text = Files.readString(Corpus.file("npu-smi/vllm-ascend-2667_A3_Ascend910_8npu_16chips_phyid.txt"));
        assertThat(NpuSmiInfoParser.processes(text)).isEmpty();
        String row = "| 1       1                 | 4242          | vllm                     | 100                     |";
        String withRow = text.replaceFirst("\\| No running processes found in NPU 1 +\\|", row);
        assertThat(withRow).contains(row);
        assertThat(NpuSmiInfoParser.processes(withRow)).containsExactly(new NpuSmiProcess(1, 1, 3, 4242L, "vllm", 100L << 20));
    }
}

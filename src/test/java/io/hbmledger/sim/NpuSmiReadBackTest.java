package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's npu-smi output read back by the project's own npu-smi reader. Skipped while
 * the reader is not on this branch (it lands from branch smi); NpuSmiFormatTest checks the layout
 * against the corpus meanwhile. Checked by hand against the smi branch's reader on 2026-11-29.
 */
class NpuSmiReadBackTest {

    @TempDir
    Path dir;

    @Test
    void simulatedTableParsesBackWithTheProjectsReader() throws Exception {
        SimState s = SimStateStore.idleHost(8, "910B1", 65536);
        // NPU 4: a server holding 55042 MiB and another process holding 113 MiB (idle 3377 MiB)
        s = s.withDevice(s.device(4)
                .plus(new SimState.Allocation(23686, "vllm-sim", "weights", 55042 * SimState.MIB))
                .plus(new SimState.Allocation(23725, "", "hold", 113 * SimState.MIB)));
        Path f = dir.resolve("npu-smi.txt");
        Files.writeString(f, NpuSmiFormat.info(s));
        EvidenceFile ef = EvidenceReaders.all().read(f, "npu-smi.txt");
        assumeTrue(!EvidenceFormat.UNKNOWN.equals(ef.format()),
                "the npu-smi reader has not landed on this branch yet");
        List<Observation> obs = ef.observations();
        // 3377 + 55042 + 113 = 58532 MiB
        assertThat(obs).anyMatch(o -> o.quantity() == Quantity.HBM_USED && "npu:4/chip:0".equals(o.context().device())
                && o.bytes() == 58532 * SimState.MIB);
        assertThat(obs).anyMatch(o -> o.quantity() == Quantity.HBM_TOTAL && "npu:7/chip:0".equals(o.context().device())
                && o.bytes() == 65536 * SimState.MIB);
        assertThat(obs).anyMatch(o -> o.quantity() == Quantity.PROCESS_MEMORY && Long.valueOf(23686).equals(o.context().pid())
                && o.bytes() == 55042 * SimState.MIB);
        assertThat(obs).anyMatch(o -> o.quantity() == Quantity.PROCESS_MEMORY && Long.valueOf(23725).equals(o.context().pid())
                && o.bytes() == 113 * SimState.MIB);
        assertThat(obs).filteredOn(o -> o.quantity() == Quantity.PROCESS_MEMORY).hasSize(2);
    }
}

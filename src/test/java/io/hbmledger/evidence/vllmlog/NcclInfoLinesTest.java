package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * NCCL_DEBUG=INFO lines inside a vLLM log, in the shape NCCL prints them (src/debug.cc prefix
 * "HOST:PID:TID [CUDADEV] NCCL INFO"; the messages as in NCCL issue logs and its docs' P2P example).
 */
class NcclInfoLinesTest {

    private static final String LOG = String.join("\n",
            "(VllmWorker TP0 pid=4181) INFO 06-10 09:12:03 [pynccl.py:69] vLLM is using nccl==2.21.5",
            "gpu-node-1:4181:4181 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 8388608.",
            "gpu-node-1:4181:4181 [0] NCCL INFO comm 0x5a08c708f110 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0",
            "gpu-node-1:4181:4181 [0] NCCL INFO Channel 00/02 : 0 1",
            "gpu-node-1:4181:4181 [0] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer",
            "gpu-node-1:4181:4230 [0] NCCL INFO init.cc:412 Cuda Calloc Size 10485760 pointer 0x7f3a40000000",
            "gpu-node-1:4181:4230 [0] NCCL INFO Allocated shareable buffer 0x7f3a40000000 size 10485760 ipcDesc 0x7f3a3c0016d0",
            "(RayWorkerWrapper pid=4182) gpu-node-1:4182:4231 [1] NCCL INFO Allocated shareable buffer 0x7f9b20000000 size 2097152 ipcDesc 0x7f9b1c0016d0",
            "gpu-node-1:4181:4181 [0] NCCL INFO comm 0x5a08c708f110 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x49bbd7790311d5eb - Init COMPLETE",
            "gpu-node-1:4181:4181 [0] NCCL INFO Cuda Alloc Size 123456789012345678901 pointer 0x7f3a50000000",
            "");

    private static List<Observation> of(VllmLogParser.Result r, Quantity q) {
        return r.observations().stream().filter(o -> o.quantity() == q).toList();
    }

    @Test
    void allocationsBuffsizeAndChannelsWithProcessAndLocalDevice() {
        VllmLogParser.Result r = VllmLogParser.parse(LOG);
        List<Observation> alloc = of(r, Quantity.NCCL_ALLOCATED);
        // line 6 and line 7 are one allocation (same pid and pointer: the Calloc, then the P2P buffer)
        assertThat(alloc).extracting(Observation::bytes).containsExactly(10485760L, 2097152L);
        assertThat(alloc).extracting(Observation::line).containsExactly(6, 8);
        assertThat(alloc.get(0).context().pid()).isEqualTo(4181L);
        assertThat(alloc.get(0).context().device()).isEqualTo("cuda:0");
        assertThat(alloc.get(1).context().pid()).isEqualTo(4182L);
        assertThat(alloc.get(1).context().device()).isEqualTo("cuda:1");
        assertThat(of(r, Quantity.NCCL_BUFFSIZE)).singleElement().satisfies(o -> {
            assertThat(o.bytes()).isEqualTo(8388608L);
            assertThat(o.line()).isEqualTo(2);
        });
        assertThat(of(r, Quantity.NCCL_CHANNELS)).singleElement().satisfies(o -> {
            assertThat(o.value()).isEqualTo(2.0);
            assertThat(o.line()).isEqualTo(5);
        });
        assertThat(r.warnings()).singleElement().asString().startsWith("line 10:").contains("21 digits");
    }

    @Test
    void samePointerInAnotherProcessIsAnotherAllocation() {
        VllmLogParser.Result r = VllmLogParser.parse(String.join("\n",
                "h:1:1 [0] NCCL INFO Allocated shareable buffer 0x7f0000000000 size 4194304 ipcDesc 0x1",
                "h:2:2 [0] NCCL INFO Allocated shareable buffer 0x7f0000000000 size 4194304 ipcDesc 0x1", ""));
        assertThat(of(r, Quantity.NCCL_ALLOCATED)).hasSize(2);
    }

    @Test
    void defaultSubsystemsGiveNoBytes() {
        // NCCL_DEBUG=INFO alone (INIT,BOOTSTRAP,ENV): topology and init lines, no allocation sizes
        VllmLogParser.Result r = VllmLogParser.parse(String.join("\n",
                "node:737:737 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
                "node:737:737 [0] NCCL INFO CC Off, workFifoBytes 1048576",
                "node:737:737 [0] NCCL INFO comm 0x1277bf60 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 65000 commId 0xbd10cc2bcb56e132 - Init START", ""));
        assertThat(r.observations()).noneMatch(o -> o.quantity() == Quantity.NCCL_ALLOCATED);
    }
}

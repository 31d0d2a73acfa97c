package io.hbmledger.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SIMULATOR: the NCCL_DEBUG=INFO lines a CUDA vLLM worker's NCCL prints while it sets up the
 * tensor-parallel communicator, in the shape of NCCL's own output (NVIDIA/nccl src/debug.cc
 * {@code HOST:PID:TID [CUDADEV] NCCL INFO ...}; init.cc "comm ... rank R nRanks N ...", "N coll
 * channels, ...", "... - Init COMPLETE"; transport/p2p.cc "Allocated shareable buffer PTR size N
 * ipcDesc PTR"). As NCCL does, nothing is printed unless {@code NCCL_DEBUG=INFO}; the allocation
 * lines only when {@code NCCL_DEBUG_SUBSYS} names ALLOC, P2P or ALL (NCCL's default is
 * INIT,BOOTSTRAP,ENV); NCCL_BUFFSIZE is echoed when set. Not NCCL.
 */
final class NcclDebugLines {

    static final int CHANNELS = 2;

    private NcclDebugLines() {
    }

    /**
     * The lines of one rank.
     *
     * @param pid the process; {@code localIndex} its CUDA device as the process numbers it
     * @param bytes the simulator's NCCL buffers of the rank, split evenly over the channels
     */
    static List<String> of(Map<String, String> env, long pid, int localIndex, int rank, int world, long bytes) {
        List<String> out = new ArrayList<>();
        if (!"INFO".equalsIgnoreCase(env.getOrDefault("NCCL_DEBUG", "")) && !"TRACE".equalsIgnoreCase(env.getOrDefault("NCCL_DEBUG", ""))) {
            return out;
        }
        String subsys = env.getOrDefault("NCCL_DEBUG_SUBSYS", "INIT,BOOTSTRAP,ENV").toUpperCase(Locale.ROOT);
        boolean alloc = subsys.matches("(^|.*,)\\s*(ALLOC|P2P|ALL)\\s*(,.*|$)");
        String p = String.format(Locale.ROOT, "simhost:%d:%d [%d] NCCL INFO ", pid, pid + 40 + rank, localIndex);
        long comm = 0x55d0c0a1b2c0L + 0x1000L * rank;
        out.add(p + String.format(Locale.ROOT, "comm 0x%x rank %d nRanks %d nNodes 1 localRanks %d localRank %d MNNVL 0",
                comm, rank, world, world, rank));
        StringBuilder ring = new StringBuilder();
        for (int r = 0; r < world; r++) {
            ring.append(' ').append(r);
        }
        for (int c = 0; c < CHANNELS; c++) {
            out.add(p + String.format(Locale.ROOT, "Channel %02d/%02d :%s", c, CHANNELS, ring));
        }
        String buffsize = env.get("NCCL_BUFFSIZE");
        if (buffsize != null && buffsize.matches("\\d+")) {
            out.add(p + "NCCL_BUFFSIZE set by environment to " + buffsize + ".");
        }
        out.add(p + CHANNELS + " coll channels, 0 collnet channels, 0 nvls channels, " + CHANNELS
                + " p2p channels, " + CHANNELS + " p2p channels per peer");
        if (alloc) {
            long each = bytes / CHANNELS;
            for (int c = 0; c < CHANNELS; c++) {
                long size = c == CHANNELS - 1 ? bytes - each * (CHANNELS - 1) : each;
                out.add(p + String.format(Locale.ROOT, "Allocated shareable buffer 0x7f%02x%02x000000 size %d ipcDesc 0x7f%02x%02x0016d0",
                        rank, c, size, rank, c));
            }
        }
        out.add(p + String.format(Locale.ROOT, "comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x49bbd7790311d5eb - Init COMPLETE",
                comm, rank, world, localIndex, localIndex, 0x18 + localIndex));
        return out;
    }
}

package io.hbmledger.verdict;

import java.util.List;

/**
 * Everything the findings are worked out from, gathered at the edge from the evidence set and
 * the ledger. Pure data.
 *
 * @param servers the server instances, each start of each engine apart, in start order
 * @param devices the devices with their samples at the ledger's moment
 * @param peerUtilizations utilizations of other instances sharing the devices, in start order,
 *     when the user or the run names them (the instances whose logs the run does not hold)
 * @param gpu true on NVIDIA GPUs (CUDA wording), false on Ascend NPUs
 */
public record RunFacts(List<ServerFacts> servers, List<DeviceFacts> devices, List<Figure> peerUtilizations,
                       boolean gpu) {

    public RunFacts {
        servers = List.copyOf(servers);
        devices = List.copyOf(devices);
        peerUtilizations = List.copyOf(peerUtilizations);
    }
}

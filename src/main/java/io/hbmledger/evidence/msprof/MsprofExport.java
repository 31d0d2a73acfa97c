package io.hbmledger.evidence.msprof;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One profiling output folder: an msprof {@code PROF_*} directory or a torch_npu
 * {@code *_ascend_pt} directory, with the memory files chosen from it.
 *
 * @param root the folder
 * @param kind {@code msprof} or {@code torch_npu}
 * @param rankIds ids read from the folder name: keys {@code rank}, {@code dp}, {@code tp},
 *     {@code ep}, {@code pp} (e.g. {@code dp0_tp1_rank1_..._ascend_pt}); empty when the name has none
 * @param inputs the files to read
 * @param skipped files left out, each with the reason (the same table found in a preferred place)
 */
public record MsprofExport(Path root, String kind, Map<String, Integer> rankIds, List<MsprofInput> inputs,
                           List<String> skipped) {

    public MsprofExport {
        rankIds = Map.copyOf(rankIds);
        inputs = List.copyOf(inputs);
        skipped = List.copyOf(skipped);
    }
}

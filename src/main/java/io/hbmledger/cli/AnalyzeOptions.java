package io.hbmledger.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What {@code analyze} was asked, as parsed ({@link AnalyzeSpec}): null for an option not given
 * (its default is the loader's); the maps and {@code utilizations} are empty then, as before.
 */
record AnalyzeOptions(List<Path> inputs, AnalyzeFormat format, boolean detail, String explain, Integer tp, Integer dp,
                      List<Integer> devices, Map<String, String> moments, Map<String, Integer> fileDevices,
                      List<Long> serverPids, String model, Map<String, String> instants, Path modelDir, Integer pp,
                      boolean ep, String dtype, String kvCacheDtype, boolean allDevices, boolean noWrite,
                      List<Double> utilizations, FailOn failOn) {
}

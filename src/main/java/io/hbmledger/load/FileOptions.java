package io.hbmledger.load;

import java.util.List;
import java.util.Map;

/**
 * What the user says about evidence files given one by one; a run directory says all of it in
 * its run.json instead. Null or empty means not given.
 *
 * @param tp tensor-parallel size, >= 1
 * @param dp data-parallel size, >= 1
 * @param pp pipeline-parallel size, >= 1
 * @param ep expert parallelism was on
 * @param dtype vLLM {@code --dtype}, for the checkpoint's per-device share
 * @param kvCacheDtype vLLM {@code --kv-cache-dtype}, for KV bytes per token
 * @param devices device ids in rank order (as in ASCEND_RT_VISIBLE_DEVICES)
 * @param moments file (as given, its name, or the same file) to moment name
 * @param fileDevices file to the logical device its figures concern
 * @param model model name for the heading
 * @param instants instant name to ISO-8601 time with offset, for msprof series
 */
public record FileOptions(Integer tp, Integer dp, Integer pp, boolean ep, String dtype, String kvCacheDtype,
                          List<Integer> devices, Map<String, String> moments, Map<String, Integer> fileDevices,
                          String model, Map<String, String> instants) {

    public FileOptions {
        moments = moments == null ? Map.of() : moments;
        fileDevices = fileDevices == null ? Map.of() : fileDevices;
        instants = instants == null ? Map.of() : instants;
    }

    /** Nothing said: one rank, no moments, no instants. */
    public static FileOptions none() {
        return new FileOptions(null, null, null, false, null, null, null, Map.of(), Map.of(), null, Map.of());
    }

    /** True when any option is given (a run directory refuses them: its run.json says it). */
    boolean anyGiven() {
        return tp != null || dp != null || pp != null || ep || dtype != null || kvCacheDtype != null || devices != null
                || !moments.isEmpty() || model != null || !instants.isEmpty() || !fileDevices.isEmpty();
    }
}

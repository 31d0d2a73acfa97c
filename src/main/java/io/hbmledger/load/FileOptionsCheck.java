package io.hbmledger.load;

import io.hbmledger.ledger.Layout;
import io.hbmledger.run.RunInstants;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Refuses options that would give a wrong ledger without a word: bad sizes, devices or instants. */
final class FileOptionsCheck {

    private FileOptionsCheck() {
    }

    /** --tp/--dp/--pp are counts (>= 1); --devices are device ids (>= 0), one per rank, no repeats; --instant as {@link #checkInstants}. */
    static void check(FileOptions o) throws BadInputException {
        checkInstants(o.instants());
        if (o.tp() != null && o.tp() < 1) {
            throw new BadInputException("--tp " + o.tp() + ": expected the tensor-parallel size, an integer >= 1");
        }
        if (o.dp() != null && o.dp() < 1) {
            throw new BadInputException("--dp " + o.dp() + ": expected the data-parallel size, an integer >= 1");
        }
        if (o.pp() != null && o.pp() < 1) {
            throw new BadInputException("--pp " + o.pp() + ": expected the pipeline-parallel size, an integer >= 1");
        }
        if (o.devices() != null) {
            checkDevices(o);
        }
    }

    /**
     * --server-pid are process ids (> 0): a negative or zero one matches no process in npu-smi's
     * table, and every process on the card would then be another tenant without a word.
     */
    static void checkServerPids(List<Long> pids) throws BadInputException {
        if (pids == null) {
            return;
        }
        for (Long pid : pids) {
            if (pid == null || pid <= 0) {
                throw new BadInputException("--server-pid " + joined(pids) + ": expected process ids, whole numbers"
                        + " above 0 (the pids npu-smi or nvidia-smi lists for the server), found " + pid);
            }
        }
    }

    private static void checkDevices(FileOptions o) throws BadInputException {
        List<Integer> devices = o.devices();
        Set<Integer> seen = new HashSet<>();
        for (Integer id : devices) {
            if (id == null || id < 0) {
                throw new BadInputException("--devices " + devices + ": expected device ids >= 0"
                        + " (as in ASCEND_RT_VISIBLE_DEVICES), found " + id);
            }
            if (!seen.add(id)) {
                throw new BadInputException("--devices " + devices + ": device " + id + " is listed twice;"
                        + " give each rank's own device, in rank order");
            }
        }
        Layout l = Layout.of(o.tp(), o.dp(), o.pp(), devices, List.of(), null);
        if (devices.size() > l.deploymentRanks()) {
            // devices[i] is rank i's device: a device past the last rank would get a ledger of a rank that does not exist
            throw new BadInputException("--devices " + joined(devices)
                    + " lists " + devices.size() + " devices but " + l.sizes() + " = " + l.deploymentRanks()
                    + (l.deploymentRanks() == 1 ? " rank" : " ranks") + " (device i is where rank i ran, so "
                    + devices.subList(l.deploymentRanks(), devices.size()) + " would be ranks that do not exist);"
                    + " give the parallel sizes the server ran with (--tp, --dp, --pp; TP x DP x PP = " + devices.size()
                    + " here) or list only the ranks' devices (--devices "
                    + joined(devices.subList(0, l.deploymentRanks())) + ")");
        }
    }

    /**
     * --instant names one of the run's moments and gives a time with its offset: a typo in the
     * name or a time without offset would otherwise leave the msprof lines without a ready
     * instant and the exit code at 0.
     */
    private static void checkInstants(Map<String, String> instants) throws BadInputException {
        for (Map.Entry<String, String> e : instants.entrySet()) {
            String given = "--instant " + e.getKey() + "=" + e.getValue();
            String accepted = "; expected NAME=TIME with NAME one of the run's moments (" + String.join(", ", RunInstants.NAMES)
                    + ", as in run.json \"moments\") and TIME in " + RunInstants.FORMAT
                    + ", e.g. --instant ready=2026-11-29T21:03:04.120+08:00";
            if (!RunInstants.NAMES.contains(e.getKey())) {
                throw new BadInputException(given + ": unknown instant name '" + e.getKey() + "'" + accepted);
            }
            if (RunInstants.epochUs(e.getValue()).isEmpty()) {
                throw new BadInputException(given + ": '" + e.getValue() + "' is not a time with an offset" + accepted);
            }
        }
    }

    private static String joined(List<? extends Number> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}

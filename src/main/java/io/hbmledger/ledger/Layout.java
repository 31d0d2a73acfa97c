package io.hbmledger.ledger;

import java.util.ArrayList;
import java.util.List;

/**
 * The deployment as the ledger needs it: which logical device each worker rank ran on, and the
 * serving processes' pids.
 *
 * @param pp pipeline-parallel size (1 when not given): a replica has TP x PP ranks
 * @param devices logical device id of rank i at index i
 * @param devicesGiven false when the run did not name the devices and rank i was assumed to run
 *     on device i
 * @param serverPids pids of the serving execution, empty when unknown
 * @param model model name, for the heading only
 * @param origin where TP/DP/PP and the devices were read when neither options nor run.json gave
 *     them (the log's engine arguments or start command, with file and line), else null
 * @param utilization gpu_memory_utilization as run.json states it, or null; the log's own
 *     figure, when printed, is the engine's and wins
 */
public record Layout(int tp, int dp, int pp, List<Integer> devices, boolean devicesGiven,
                     List<Long> serverPids, String model, String origin, Double utilization) {

    public Layout {
        devices = List.copyOf(devices);
        serverPids = List.copyOf(serverPids);
    }

    /**
     * @param devices the devices in rank order, or empty to assume ranks 0..tp*dp-1 on devices
     *     0..tp*dp-1
     */
    public static Layout of(Integer tp, Integer dp, List<Integer> devices, List<Long> serverPids, String model) {
        return of(tp, dp, null, devices, serverPids, model);
    }

    /**
     * @param devices the devices in rank order, or empty to assume ranks 0..tp*dp*pp-1 on devices
     *     0..tp*dp*pp-1
     */
    public static Layout of(Integer tp, Integer dp, Integer pp, List<Integer> devices, List<Long> serverPids, String model) {
        int t = tp == null ? 1 : tp;
        int d = dp == null ? 1 : dp;
        int p = pp == null ? 1 : pp;
        List<Long> pids = serverPids == null ? List.of() : serverPids;
        if (devices != null && !devices.isEmpty()) {
            return new Layout(t, d, p, devices, true, pids, model, null, null);
        }
        List<Integer> assumed = new ArrayList<>();
        for (int i = 0; i < t * d * p; i++) {
            assumed.add(i);
        }
        return new Layout(t, d, p, assumed, false, pids, model, null, null);
    }

    /** This layout, saying where it was read. */
    public Layout withOrigin(String where) {
        return new Layout(tp, dp, pp, devices, devicesGiven, serverPids, model, where, utilization);
    }

    /** This layout with run.json's gpu_memory_utilization. */
    public Layout withUtilization(Double u) {
        return new Layout(tp, dp, pp, devices, devicesGiven, serverPids, model, origin, u);
    }

    /** TP x DP x PP: the ranks the deployment has (over all its nodes). */
    public int deploymentRanks() {
        return tp * dp * pp;
    }

    /** "TP 2 x DP 1" or "TP 2 x PP 2 x DP 1", for messages. */
    public String sizes() {
        return "TP " + tp + (pp > 1 ? " x PP " + pp : "") + " x DP " + dp;
    }

    public int ranks() {
        return devices.size();
    }
}

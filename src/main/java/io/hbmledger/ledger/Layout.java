package io.hbmledger.ledger;

import java.util.ArrayList;
import java.util.List;

/**
 * The deployment as the ledger needs it: which logical device each worker rank ran on, and the
 * serving processes' pids.
 *
 * @param devices logical device id of rank i at index i
 * @param devicesGiven false when the run did not name the devices and rank i was assumed to run
 *     on device i
 * @param serverPids pids of the serving execution, empty when unknown
 * @param model model name, for the heading only
 */
public record Layout(int tp, int dp, List<Integer> devices, boolean devicesGiven,
                     List<Long> serverPids, String model) {

    public Layout {
        devices = List.copyOf(devices);
        serverPids = List.copyOf(serverPids);
    }

    /**
     * @param devices the devices in rank order, or empty to assume ranks 0..tp*dp-1 on devices
     *     0..tp*dp-1
     */
    public static Layout of(Integer tp, Integer dp, List<Integer> devices, List<Long> serverPids, String model) {
        int t = tp == null ? 1 : tp;
        int d = dp == null ? 1 : dp;
        if (devices != null && !devices.isEmpty()) {
            return new Layout(t, d, devices, true, serverPids == null ? List.of() : serverPids, model);
        }
        List<Integer> assumed = new ArrayList<>();
        for (int i = 0; i < t * d; i++) {
            assumed.add(i);
        }
        return new Layout(t, d, assumed, false, serverPids == null ? List.of() : serverPids, model);
    }

    public int ranks() {
        return devices.size();
    }
}

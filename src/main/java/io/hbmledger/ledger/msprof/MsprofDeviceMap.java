package io.hbmledger.ledger.msprof;

import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.check.MsprofDeviceCheck;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which msprof device ({@code npu:N} from a row's own device column, or a {@code device_N}
 * folder) is which device of the deployment. Three id spaces meet here: npu-smi's NPU id /
 * Phy-ID, the logical ids of {@code ASCEND_RT_VISIBLE_DEVICES} (run.json
 * {@code deployment.devices}, rank order) and the ids msprof writes. msprof writes the driver's
 * device id, the same space as {@code deployment.devices}; a torch_npu profiler writes the
 * process's own index ({@code NPU:0} for its first visible device). So, per export:
 * <ol>
 *   <li>a torch_npu folder that names its rank ({@code ..._rank3_..._ascend_pt}) and holds one
 *       device: that rank's device;</li>
 *   <li>every id among {@code deployment.devices}: the same id;</li>
 *   <li>every id below the number of ranks: an index into {@code deployment.devices} (said so);</li>
 *   <li>otherwise ids outside the deployment cannot be reconciled: warned, and their data kept
 *       out of every device's sum.</li>
 * </ol>
 */
public final class MsprofDeviceMap {

    /** One msprof device of one export tied to a logical device. */
    public record Match(MsprofEvidence.Export export, String key, String how, boolean reconciled) {

        /** What the export says of this device. */
        public io.hbmledger.evidence.msprof.MsprofSummary.DeviceMemory memory() {
            return export.summary().device(key);
        }
    }

    /** An msprof device that no device of the deployment matches. */
    record Unmatched(MsprofEvidence.Export export, String key, String why) {
    }

    private final Map<Integer, List<Match>> byDevice = new LinkedHashMap<>();
    private final List<Unmatched> unmatched = new ArrayList<>();

    private MsprofDeviceMap() {
    }

    public static MsprofDeviceMap of(MsprofEvidence m, Layout layout) {
        MsprofDeviceMap map = new MsprofDeviceMap();
        List<Integer> devs = layout.devices();
        for (MsprofEvidence.Export e : m.exports()) {
            List<String> keys = e.summary().devices();
            List<Integer> ids = keys.stream().map(MsprofDeviceMap::id).toList();
            Integer rank = e.rankIds().get("rank");
            if (rank != null && keys.size() == 1 && rank < devs.size()) {
                int target = devs.get(rank);
                String how = ids.get(0) == target ? keys.get(0) + " is device " + target + " (same id; folder rank " + rank + ")"
                        : keys.get(0) + " of the rank-" + rank + " folder " + e.name() + " is the device rank " + rank
                        + " ran on, device " + target + " (torch_npu numbers a process's devices from 0)";
                map.add(target, new Match(e, keys.get(0), how, ids.get(0) != target));
                continue;
            }
            boolean allIn = devs.containsAll(ids);
            boolean allIndex = ids.stream().allMatch(i -> i >= 0 && i < devs.size());
            for (int i = 0; i < keys.size(); i++) {
                String k = keys.get(i);
                int id = ids.get(i);
                if (allIn) {
                    map.add(id, new Match(e, k, k + " is device " + id + " (same id)", false));
                } else if (allIndex && layout.devicesGiven()) {
                    int target = devs.get(id);
                    map.add(target, new Match(e, k, k + " taken as index " + id + " into deployment.devices "
                            + devs + " (ASCEND_RT_VISIBLE_DEVICES order): device " + target
                            + "; the export's ids are not the deployment's ids, check that this is the right export", true));
                } else if (devs.contains(id)) {
                    map.add(id, new Match(e, k, k + " is device " + id + " (same id)", false));
                } else {
                    map.unmatched.add(new Unmatched(e, k, k + " in " + e.name() + " is not a device of the deployment "
                            + devs + (layout.devicesGiven() ? "" : " (assumed: the run does not name its devices;"
                            + " give deployment.devices or --devices)")));
                }
            }
        }
        return map;
    }

    private void add(int device, Match m) {
        byDevice.computeIfAbsent(device, k -> new ArrayList<>()).add(m);
    }

    /**
     * The msprof device that stands for the draft's device in a ledger at ready (the first match:
     * several are reported by {@link MsprofDeviceCheck}); empty when the run has no msprof data
     * for it or the ledger is at another moment (msprof lines are read at the ready instant).
     */
    public static java.util.Optional<Match> atReady(EvidenceSet ev, DeviceDraft d) {
        if (!ev.msprof().present() || !"ready".equals(d.moment())) {
            return java.util.Optional.empty();
        }
        List<Match> matches = of(ev.msprof(), ev.layout()).matches(d.logicalDevice());
        return matches.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(matches.get(0));
    }

    public List<Match> matches(int logicalDevice) {
        return byDevice.getOrDefault(logicalDevice, List.of());
    }

    List<Unmatched> unmatched() {
        return unmatched;
    }

    static int id(String key) {
        try {
            return Integer.parseInt(key.substring(key.indexOf(':') + 1));
        } catch (RuntimeException e) {
            return -1;
        }
    }
}

package io.hbmledger.ledger.vllm;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Ties out-of-memory figures to the device that failed. The OOM message names the device as the
 * process saw it ({@code NPU 15}, {@code GPU 0}): that index counts the visible devices, so it is
 * mapped through the deployment's device list. Without a device in the message, the file's
 * {@code device} from run.json, then the line's rank, then a one-device deployment decide.
 */
public final class OomDevices {

    private static final Pattern INDEX = Pattern.compile("(?i)(?:npu|gpu|cuda|device)\\D{0,2}(\\d+)");

    private OomDevices() {
    }

    public static boolean isOom(TaggedObservation t) {
        return Quantity.OUT_OF_MEMORY.contains(t.quantity());
    }

    /** The logical device an OOM line concerns, or null when it cannot be told. */
    public static Integer deviceOf(TaggedObservation t, Layout layout) {
        // The device the user named for the file (run.json evidence[].device, --file-device) wins.
        if (t.device() != null) {
            return t.device();
        }
        // "NPU k" / "GPU k" is the allocator's process-local index (torch_npu NPUCachingAllocator,
        // c10 CUDACachingAllocator), i.e. position k of the visible-devices list. vLLM's workers
        // (multiprocessing and Ray alike) see the deployment's devices in rank order and select
        // theirs by local rank, so position k is deployment.devices[k] (inferred; a worker started
        // with only its own device visible would print 0). Beyond the list it cannot be tied.
        if (t.o().context().device() != null) {
            Matcher m = INDEX.matcher(t.o().context().device());
            if (m.find()) {
                int visible = Integer.parseInt(m.group(1));
                return visible < layout.devices().size() ? layout.devices().get(visible) : null;
            }
        }
        if (t.rank() != null && t.rank() < layout.devices().size()) {
            return layout.devices().get(t.rank());
        }
        if (layout.devices().size() == 1) {
            return layout.devices().get(0);
        }
        return null;
    }

    /** OOM lines of the device, in file order. */
    public static List<TaggedObservation> of(EvidenceSet ev, int logicalDevice) {
        List<TaggedObservation> out = new ArrayList<>();
        for (TaggedObservation t : ev.where(OomDevices::isOom)) {
            Integer d = deviceOf(t, ev.layout());
            if (d != null && d == logicalDevice) {
                out.add(t);
            }
        }
        return out;
    }
}

package io.hbmledger.verdict;

import java.util.Locale;
import java.util.Optional;

/**
 * What other hosts of the same device model showed, for estimates when a run lacks its own
 * baseline: the driver/runtime reserve of an idle card and the total torch sees. Each range is
 * a measurement on other hosts, so figures built on it are {@code estimated}.
 */
final class DeviceModels {

    /**
     * @param idleLowMib HBM used on idle cards (npu-smi), lowest seen
     * @param idleHighMib HBM used on idle cards, highest seen
     * @param torchTotalMib the total torch_npu reports (vLLM's "total" in its budget lines)
     * @param seenOn where the figures were read
     */
    record Model(String name, long idleLowMib, long idleHighMib, long torchTotalMib, String seenOn) {
    }

    private DeviceModels() {
    }

    static Optional<Model> byName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.trim().toUpperCase(Locale.ROOT);
        if (n.equals("910B4")) {
            return Optional.of(new Model("910B4", 2787, 3197, 30196,
                    "idle 910B4 npu-smi tables (2787-3197 MiB) and a 910B4 vLLM log (torch total 29.49 GiB) posted on other"
                            + " hosts in vllm-ascend issues; not this card"));
        }
        return Optional.empty();
    }
}

package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The device an out-of-memory message names, as the {@code device} context of its oom_*
 * observations: {@code "npu:15"} from torch_npu's "Tried to allocate X (NPU 15; ...)"
 * (torch_npu/csrc/core/npu/NPUCachingAllocator.cpp: {@code AT_ERROR("NPU out of memory. Tried to
 * allocate ", format_size(alloc_size), " (NPU ", device, "; " ...)}), {@code "gpu:0"} from
 * PyTorch's "(GPU 0; ...)" and, since torch 2.1, "GPU 0 has a total capacity of ..."
 * (c10/cuda/CUDACachingAllocator.cpp). The number is the allocator's device index: the
 * process-local ordinal, counted over ASCEND_RT_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES, not
 * the physical id npu-smi shows.
 */
final class OomDevice {

    private static final Pattern DEVICE = Pattern.compile(
            "(?i)\\((NPU|GPU)\\s+(\\d+)\\s*;|\\b(NPU|GPU)\\s+(\\d+)\\s+has a total capacity");

    private OomDevice() {
    }

    /** Sets the device on the oom_* observations added to out from index from on. */
    static void tag(String message, List<Observation> out, int from) {
        Matcher m = DEVICE.matcher(message);
        if (!m.find()) {
            return;
        }
        String kind = (m.group(1) != null ? m.group(1) : m.group(3)).toLowerCase(Locale.ROOT);
        String index = m.group(2) != null ? m.group(2) : m.group(4);
        for (int i = from; i < out.size(); i++) {
            Observation o = out.get(i);
            if (Quantity.OUT_OF_MEMORY.contains(o.quantity()) && o.context().device() == null) {
                out.set(i, o.in(o.context().toBuilder().device(kind + ":" + index).build()));
            }
        }
    }
}

package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The processes an out-of-memory message lists: since torch 2.1, c10/cuda/CUDACachingAllocator.cpp
 * {@code reportProcessMemoryInfo} writes "Process N has X memory in use." for every process the
 * driver (NVML) lists on the device, except the failing one, which it writes as "Including
 * non-PyTorch memory, this process has X memory in use." (read by the phrase rules). Inside a
 * container NVML's pid is the host's, so the failing process can appear as "Process N" too.
 * One {@code oom_process_in_use} per process, with {@code pid} = N; the size is c10's
 * format_size (bytes, KiB, MiB or GiB).
 */
final class OomProcesses {

    private static final Pattern PROCESS = Pattern.compile(
            "\\bProcess\\s+(?<pid>\\d{1,10})\\s+has\\s+(?<v>[\\d.,]+\\s*(?:GiB|MiB|KiB|bytes))\\s+memory in use");

    private OomProcesses() {
    }

    static void read(LogSegment seg, int lineNo, List<Observation> out) {
        Matcher m = PROCESS.matcher(seg.message());
        while (m.find()) {
            String raw = m.group("v");
            Optional<Long> bytes = Amounts.read(raw).flatMap(Amounts::bytes);
            if (bytes.isEmpty()) {
                continue;
            }
            Observation o = VllmLogParser.context(
                    Observation.bytes(Quantity.OOM_PROCESS_IN_USE, bytes.get(), lineNo, Amounts.trimText(raw)), seg);
            out.add(o.in(o.context().toBuilder().pid(Long.parseLong(m.group("pid"))).build()));
        }
    }
}

package io.hbmledger.ledger;

import io.hbmledger.evidence.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The npu-smi process table of the sample that gave "used": memory of the serving processes and
 * of every other process (measured for one process row, inferred with the sum shown for several), and device used minus all process memory as the part no
 * process is charged for (driver, firmware, runtime reserve; inferred from measured figures).
 *
 * <p>Server processes are the pids run.json names ({@code deployment.server_pids}); without them,
 * a process whose name contains vllm, python or ray counts as the server's and the note says the
 * split was made by name.
 */
final class ProcessTableRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (d.sampleFile() == null) {
            d.putIfAbsent(Entry.unknown(Component.OTHER_PROCESSES, "no " + Accelerator.smiName(ev) + " sample at " + d.moment()));
            return;
        }
        if (!ev.smiListsProcesses(d.sampleFile())) {
            d.putIfAbsent(Entry.unknown(Component.OTHER_PROCESSES,
                    "the " + d.moment() + " sample lists no process on any device (no process table, or it was cut off)"));
            return;
        }
        List<TaggedObservation> procs = ev.smiRows(d.sampleFile(), d.logicalDevice).stream()
                .filter(t -> t.quantity() == Quantity.PROCESS_MEMORY).toList();
        List<Long> pids = ev.layout().serverPids();
        // In a container, npu-smi may show host pids while the server's own pids are the
        // container's: when no listed pid of the whole sample is a server pid, pids cannot tell.
        String sampleFile = d.sampleFile();
        boolean pidsSeen = !pids.isEmpty() && ev.where(t -> t.file().equals(sampleFile)
                && t.quantity() == Quantity.PROCESS_MEMORY && pids.contains(t.o().context().pid())).size() > 0;
        boolean byPid = pidsSeen;
        List<TaggedObservation> server = new ArrayList<>();
        List<TaggedObservation> other = new ArrayList<>();
        for (TaggedObservation p : procs) {
            boolean isServer = byPid ? pids.contains(p.o().context().pid()) : byName(p.o().context().processName());
            (isServer ? server : other).add(p);
        }
        String how = byPid ? "told apart by deployment.server_pids"
                : pids.isEmpty() ? "told apart by process name (vllm, python, ray; run.json names no server_pids)"
                : "told apart by process name (vllm, python, ray): none of run.json's server_pids is in this " + Accelerator.smiName(ev) + " table"
                        + " (a container shows other pids than the host)";
        if (byPid) {
            UnlistedServerCheck.apply(d, other);
        }
        long serverBytes = sum(server);
        long otherBytes = sum(other);
        boolean split = d.hasKnownCounted(Component.WEIGHTS) || d.hasKnownCounted(Component.KV_CACHE)
                || d.hasKnownCounted(Component.TORCH_ALLOCATED);
        if (!server.isEmpty()) {
            Entry e = new Entry(Component.SERVER_PROCESSES, serverBytes, confidence(server), sources(server),
                    "serving process memory per the process table (" + describe(server) + "), " + how,
                    d.sampleMoment(), true, arithmetic(server));
            d.put(split ? e.notCounted("holds the vLLM components above, so not in the sum") : e);
        }
        // No other process: the table's rows for this device (or its usage row) are the evidence.
        List<Source> otherSrc = !other.isEmpty() ? sources(other)
                : !server.isEmpty() ? sources(server) : d.used().known() ? List.of(d.used().source()) : List.of();
        d.put(new Entry(Component.OTHER_PROCESSES, otherBytes, confidence(other), otherSrc,
                other.isEmpty() ? "the process table lists no other process on this device"
                        : "other processes on this device (" + describe(other) + "), " + how,
                d.sampleMoment(), true, arithmetic(other)));
        if (d.used().known()) {
            long all = serverBytes + otherBytes;
            long outside = d.used().bytes() - all;
            List<Source> src = new ArrayList<>();
            src.add(d.used().source());
            src.addAll(sources(procs));
            d.put(new Entry(Component.OUTSIDE_PROCESSES, outside, Confidence.INFERRED, src,
                    "device used minus the memory of every listed process: driver, firmware and runtime reserve",
                    d.sampleMoment(), true, "used " + d.used().bytes() + " B - processes " + all + " B = " + outside
                            + " B (" + Units.gib(outside) + ")"));
            d.get(Component.DRIVER_BASELINE).filter(Entry::known).ifPresent(e ->
                    d.put(e.notCounted("part of outside_processes, so not in the sum")));
        }
    }

    static boolean byName(String name) {
        String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
        return n.contains("vllm") || n.contains("python") || n.contains("ray");
    }

    /**
     * Rows of one npu-smi sample's process table, added up, are still that sample's reading
     * (measured; several rows show their sum). Only lines that bring in another source or a
     * rate, like outside_processes (used - listed rows), are inferred.
     */
    private static Confidence confidence(List<TaggedObservation> l) {
        return Confidence.MEASURED;
    }

    private static String arithmetic(List<TaggedObservation> l) {
        if (l.size() <= 1) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (TaggedObservation t : l) {
            b.append(b.length() == 0 ? "" : " + ").append("pid ").append(t.o().context().pid()).append(' ')
                    .append(t.o().bytes()).append(" B");
        }
        long sum = sum(l);
        return b.append(" = ").append(sum).append(" B (").append(Units.gib(sum)).append(')').toString();
    }

    private static long sum(List<TaggedObservation> l) {
        return l.stream().mapToLong(t -> t.o().bytes()).sum();
    }

    private static List<Source> sources(List<TaggedObservation> l) {
        return l.stream().map(TaggedObservation::source).toList();
    }

    private static String describe(List<TaggedObservation> l) {
        StringBuilder b = new StringBuilder();
        for (TaggedObservation t : l) {
            b.append(b.length() == 0 ? "" : ", ").append("pid ").append(t.o().context().pid())
                    .append(t.o().context().processName() == null ? "" : " " + t.o().context().processName());
        }
        return b.toString();
    }
}

package io.hbmledger.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The npu-smi process table of the sample that gave "used": memory of the serving processes and
 * of every other process (measured), and device used minus all process memory as the part no
 * process is charged for (driver, firmware, runtime reserve; inferred from measured figures).
 *
 * <p>Server processes are the pids run.json names ({@code deployment.server_pids}); without them,
 * a process whose name contains vllm, python or ray counts as the server's and the note says the
 * split was made by name.
 */
final class ProcessTableRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (d.sampleFile == null) {
            d.putIfAbsent(Entry.unknown(Component.OTHER_PROCESSES, "no npu-smi sample at " + d.moment));
            return;
        }
        if (!ev.smiListsProcesses(d.sampleFile)) {
            d.putIfAbsent(Entry.unknown(Component.OTHER_PROCESSES,
                    "the " + d.moment + " sample lists no process on any device (no process table, or it was cut off)"));
            return;
        }
        List<TaggedObservation> procs = ev.smiRows(d.sampleFile, d.logicalDevice).stream()
                .filter(t -> t.quantity().equals("process_memory")).toList();
        List<Long> pids = ev.layout().serverPids();
        List<TaggedObservation> server = new ArrayList<>();
        List<TaggedObservation> other = new ArrayList<>();
        for (TaggedObservation p : procs) {
            boolean isServer = pids.isEmpty() ? byName(p.o().processName()) : pids.contains(p.o().pid());
            (isServer ? server : other).add(p);
        }
        String how = pids.isEmpty() ? "told apart by process name (run.json names no server_pids)"
                : "told apart by deployment.server_pids";
        long serverBytes = sum(server);
        long otherBytes = sum(other);
        boolean split = d.hasKnownCounted(Component.WEIGHTS) || d.hasKnownCounted(Component.KV_CACHE)
                || d.hasKnownCounted(Component.TORCH_ALLOCATED);
        if (!server.isEmpty()) {
            Entry e = new Entry(Component.SERVER_PROCESSES, serverBytes, Confidence.MEASURED, sources(server),
                    "serving process memory per the process table (" + describe(server) + "), " + how,
                    d.sampleMoment, true, null);
            d.put(split ? e.notCounted("holds the vLLM components above, so not in the sum") : e);
        }
        d.put(new Entry(Component.OTHER_PROCESSES, otherBytes, Confidence.MEASURED, sources(other),
                other.isEmpty() ? "the process table lists no other process on this device"
                        : "other processes on this device (" + describe(other) + "), " + how,
                d.sampleMoment, true, null));
        if (d.used.known()) {
            long all = serverBytes + otherBytes;
            long outside = d.used.bytes() - all;
            List<Source> src = new ArrayList<>();
            src.add(d.used.source());
            src.addAll(sources(procs));
            d.put(new Entry(Component.OUTSIDE_PROCESSES, outside, Confidence.INFERRED, src,
                    "device used minus the memory of every listed process: driver, firmware and runtime reserve",
                    d.sampleMoment, true, "used " + d.used.bytes() + " B - processes " + all + " B = " + outside
                            + " B (" + Units.gib(outside) + ")"));
            d.get(Component.DRIVER_BASELINE).filter(Entry::known).ifPresent(e ->
                    d.put(e.notCounted("part of outside_processes, so not in the sum")));
        }
    }

    private static boolean byName(String name) {
        String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
        return n.contains("vllm") || n.contains("python") || n.contains("ray");
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
            b.append(b.length() == 0 ? "" : ", ").append("pid ").append(t.o().pid())
                    .append(t.o().processName() == null ? "" : " " + t.o().processName());
        }
        return b.toString();
    }
}
